import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../helpers/itemInput';
import { booleanValue, locatorValue, optionalEmail, optionalText, wholeNumber } from '../../helpers/values';
import { readList } from '../../transport/pagedList';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { formProperty } from './formField';

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
			formProperty('Only registrations made in this form'),
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
	const formSlug = input.convert(locatorValue(filters.formSlug), 'Form filter', optionalText);
	if (formSlug !== undefined) qs.formSlug = formSlug;
	const limit = returnAll ? undefined : input.parameter('limit', 'Limit', wholeNumber(1));

	const list = await readList.call(
		this,
		{ path: 'registrations', qs, resourceKey: 'registrations', what: 'registrations' },
		itemIndex,
		limit,
	);
	if (list.gap !== undefined) {
		this.addExecutionHints({
			message: `Item ${itemIndex}: the list of registrations may be incomplete: ${list.gap}. Run the node again to read the list anew.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return list.records;
}
