import type { INodeProperties } from 'n8n-workflow';

import type { ItemInput } from '../../input/itemInput';
import { pathSegmentText } from '../../helpers/values';
import type { ModelArgument } from '../toolFields';

/** The list-search method of the node that fills the "From List" mode of Registration. */
export const SEARCH_REGISTRATIONS = 'searchRegistrations';

/**
 * The registration an operation acts on: picked from a list searched by customer email, or given by ID (typed or
 * mapped). Workflows saved with a plain string or expression here keep working: such a value is read as the ID.
 */
export const registrationIdProperty: INodeProperties = {
	displayName: 'Registration',
	name: 'registrationId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description: 'The registration to act on',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a registration...',
			typeOptions: { searchListMethod: SEARCH_REGISTRATIONS, searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. R000123',
			hint: 'The ID shown in the admin or in the registration webhook',
		},
	],
};

/** Where a model gets a registration's ID from, for the tools that act on one registration. */
export const registrationIdArgument: ModelArgument = {
	description:
		"The registration's id, e.g. R000123: the id that registering a product or finding registrations answers with.",
};

/** What a tool that acts on one registration says of the ID it needs, in its description. */
export const BY_REGISTRATION_ID =
	'found by its id (the id that registering a product or finding registrations answers with)';

export function readRegistrationId(input: ItemInput): string {
	return input.parameter('registrationId', "'Registration' ID", pathSegmentText, { extractValue: true });
}

/**
 * Where a request about one registration goes, and how a 404 names it: the ID percent-encoded so `/`, `#`, `?` and
 * spaces stay inside one path segment; `below` adds a sub-path such as `/status`.
 */
export function registrationTarget(registrationId: string, below = ''): { path: string; record: string } {
	return {
		path: `registrations/${encodeURIComponent(registrationId)}${below}`,
		record: `registration "${registrationId}"`,
	};
}
