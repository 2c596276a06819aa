import type { INodeProperties } from 'n8n-workflow';

/** The list-search method that fills "From List" of every Form parameter. */
export const SEARCH_FORMS = 'searchForms';

/**
 * A form of the app, by its slug: picked From List (the forms the service lists, where it lists them) or typed By
 * Slug. A plain slug or expression saved here before 0.4, when this was a text field, is still read as the slug.
 */
export function formProperty(description: string): INodeProperties {
	return {
		displayName: 'Form',
		name: 'formSlug',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a form...',
				typeOptions: { searchListMethod: SEARCH_FORMS, searchable: true },
			},
			{
				displayName: 'By Slug',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. extended-warranty',
				hint: "The form's slug, shown in the admin under Form > View on the frontend",
			},
		],
	};
}
