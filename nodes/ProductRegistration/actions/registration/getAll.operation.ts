import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../helpers/itemInput';
import { booleanValue, listFromBody, optionalEmail, optionalText, wholeNumber } from '../../helpers/values';
import { serviceRequest } from '../../transport/serviceRequest';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Customer Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description: 'Only registrations made with this email address',
			},
			{
				displayName: 'Customer ID',
				name: 'customerId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 4567',
				description: "Only registrations of this customer (the shop platform's customer ID)",
			},
			{
				displayName: 'Form Slug',
				name: 'formSlug',
				type: 'string',
				placeholder: 'warranty-form',
				default: '',
				description:
					'Only registrations made in this form. The slug is shown in the admin under Form > View on the frontend.',
			},
		],
	},
	optionsCollection([concurrencyOption]),
];

export const description = displayFor('registration', 'getAll', properties);

export const runs = 'perItem';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const input = new ItemInput(this, itemIndex);
	const returnAll = input.parameter('returnAll', 'Return All', booleanValue);
	const filters = input.collection('filters');

	const qs: IDataObject = {};
	const email = input.convert(filters.email, 'Customer Email filter', optionalEmail);
	if (email !== undefined) qs.email = email;
	const customerId = input.convert(filters.customerId, 'Customer ID filter', optionalText);
	// 0 was this filter's default before 0.2, when it was a number field: it means no filter.
	if (customerId !== undefined && customerId !== '0') qs.customerId = customerId;
	const formSlug = input.convert(filters.formSlug, 'Form Slug filter', optionalText);
	if (formSlug !== undefined) qs.formSlug = formSlug;

	let limit: number | undefined;
	if (!returnAll) {
		limit = input.parameter('limit', 'Limit', wholeNumber(1));
		qs.limit = limit;
	}

	const { body } = await serviceRequest.call(this, { method: 'GET', path: 'registrations', qs }, itemIndex);
	const registrations = listFromBody(body, 'registrations');
	// The service may ignore `limit`; the user asked for at most that many.
	return limit === undefined ? registrations : registrations.slice(0, limit);
}
