import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { forItem, ItemInput } from '../../input/itemInput';
import { booleanValue, locatorValue, optionalEmail, optionalText, wholeNumber } from '../../helpers/values';
import { requestFor } from '../../input/runOptions';
import { registrationsList } from '../../../shared/registrations';
import { readList } from '../../../shared/transport/lists/listReader';
import { RecordList } from '../operation';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, MOST_LISTED_FOR_MODEL, toolAnswerProperty, toolDescriptionProperty } from '../toolFields';
import { formProperty } from '../../../shared/formField';
import { simplifyProperty } from '../toolAnswer';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		// A model gets a list bounded by its Limit, with the count said.
		displayOptions: { hide: { '@tool': [true] } },
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
				placeholder: 'e.g. nathan@example.com',
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
	simplifyProperty,
	optionsCollection([concurrencyOption]),
];

export const description = displayFor('registration', 'getAll', [
	toolDescriptionProperty(
		`Find registrations of products in the shop's product-registration app, e.g. every registration of one customer by email address. Answers with a summary saying how many match and how many are shown (at most Limit: 50 unless given, up to ${MOST_LISTED_FOR_MODEL}), and each registration's id, product, customer, serial numbers, purchase date, status (Requested, Processing, Confirmed or Unqualified) and form. A registration's id is what changing its status needs.`,
	),
	...filledByModelAsTool(properties, {
		limit: {
			description: `How many registrations to show at most, a whole number from 1 to ${MOST_LISTED_FOR_MODEL}. Leave out for 50.`,
			whenLeftOut: 50,
		},
		'filters.email': {
			description:
				'Only the registrations made with this customer email address, e.g. ann.lee@example.com. Leave out to find registrations of every customer.',
			whenLeftOut: '',
		},
	}),
	toolAnswerProperty,
]);

export const runs = 'perItem';

export const answers = 'registrations';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RecordList> {
	const input = new ItemInput(this, itemIndex);
	// A model never gets a whole list: Return All is not offered to it (see the tool's Limit).
	const returnAll = !input.asTool && input.parameter('returnAll', "'Return All'", booleanValue);
	const filters = input.collection('filters');

	const qs: IDataObject = {};
	const email = input.convert(filters.email, "'Customer Email' filter", optionalEmail, 'filters.email');
	if (email !== undefined) qs.email = email;
	const customerId = input.convert(filters.customerId, "'Customer ID' filter", optionalText, 'filters.customerId');
	// 0 was this filter's default before 0.2, when it was a number field: it means no filter.
	if (customerId !== undefined && customerId !== '0') qs.customerId = customerId;
	const formSlug = input.convert(locatorValue(filters.formSlug), "'Form' filter", optionalText, 'filters.formSlug');
	if (formSlug !== undefined) qs.formSlug = formSlug;
	const limit = returnAll
		? undefined
		: input.parameter('limit', "'Limit'", wholeNumber(1, input.asTool ? MOST_LISTED_FOR_MODEL : Infinity));

	// For a model, one record more than it is shown says whether there are more where the service gives no total.
	const list = await readList.call(
		this,
		registrationsList(qs),
		requestFor(this, itemIndex),
		limit === undefined || !input.asTool ? limit : limit + 1,
	);
	const gap = list.ending?.gap;
	if (gap !== undefined) {
		this.addExecutionHints({
			message: forItem(
				`The list of registrations may be incomplete: ${gap}. Run the node again to read the list anew`,
				itemIndex,
			),
			type: 'warning',
			location: 'outputPane',
		});
	}
	const records = limit === undefined ? list.records : list.records.slice(0, limit);
	return new RecordList(records, list.total, records.length < list.records.length, gap);
}
