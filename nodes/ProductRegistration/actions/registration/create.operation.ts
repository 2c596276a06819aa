import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { optionalText } from '../../helpers/values';
import { batchSender, batchSizeOption } from '../batchCreate';
import { displayFor } from '../displayFor';
import { ItemInput } from '../itemInput';
import { optionsCollection } from '../requestOptions';
import { coreFieldProperties, extraFieldProperties, readCoreFields, readExtraFields } from './registrationFields';

const REQUIRED_FIELDS = ['productName', 'customerEmail'];

const customerFields: Array<{ name: string; displayName: string; placeholder?: string; description?: string }> = [
	{ name: 'firstName', displayName: 'First Name' },
	{ name: 'lastName', displayName: 'Last Name' },
	{ name: 'address1', displayName: 'Address Line 1' },
	{ name: 'address2', displayName: 'Address Line 2' },
	{ name: 'city', displayName: 'City' },
	{
		name: 'state',
		displayName: 'State',
		placeholder: 'NY',
		description: 'State or region. Sent to the service under the key "State" (capital S), as its API expects.',
	},
	{ name: 'country', displayName: 'Country Code', placeholder: 'US', description: 'Country code, e.g. US or DE' },
	{ name: 'postCode', displayName: 'Post Code' },
	{ name: 'phone', displayName: 'Phone' },
];

const properties: INodeProperties[] = [
	...coreFieldProperties.map((property) =>
		REQUIRED_FIELDS.includes(property.name) ? { ...property, required: true } : property,
	),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Form Slug',
				name: 'formSlug',
				type: 'string',
				default: '',
				placeholder: 'extended-warranty',
				description:
					'Store the registration in this form instead of the default product-registration form. The slug is shown in the admin under Form > View on the frontend.',
			},
			{
				displayName: 'Customer',
				name: 'customer',
				type: 'fixedCollection',
				placeholder: 'Add Customer Details',
				default: {},
				description: "The customer's platform ID and address",
				options: [
					{
						displayName: 'Details',
						name: 'details',
						values: [
							{
								displayName: 'Customer ID',
								name: 'id',
								type: 'string',
								default: '',
								placeholder: 'e.g. 4567',
								description: "The customer's ID in the shop platform (a number)",
							},
							...customerFields.map(
								(field): INodeProperties => ({ ...field, type: 'string', default: '' }),
							),
						],
					},
				],
			},
			...extraFieldProperties,
		],
	},
	optionsCollection([batchSizeOption('registrations')]),
];

export const description = displayFor('registration', 'create', properties);

/** The customer object as the API spells it (`State` with a capital S); blank values left out. */
function readCustomer(input: ItemInput, details: IDataObject | undefined): IDataObject | undefined {
	if (!details) return undefined;
	const customer: IDataObject = {};
	const id = details.id;
	if (id !== undefined && id !== '' && id !== 0 && id !== null) {
		const numericId = Number(id);
		if (!Number.isInteger(numericId) || numericId < 1) {
			throw input.error(`The Customer ID of item ${input.itemIndex} is not a customer ID: ${JSON.stringify(id)}`);
		}
		customer.id = numericId;
	}
	for (const { name, displayName } of customerFields) {
		const value = input.convert(details[name], `Customer ${displayName}`, optionalText);
		if (value !== undefined) customer[name === 'state' ? 'State' : name] = value;
	}
	return Object.keys(customer).length === 0 ? undefined : customer;
}

/** One registration as the API takes it: standard fields, form slug, customer, and extra fields at the top level. */
export function toEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const input = new ItemInput(this, itemIndex);
	const parameters: IDataObject = {};
	for (const { name } of coreFieldProperties) parameters[name] = input.raw(name, '') as IDataObject[string];
	const additional = input.collection('additionalFields');

	const registration: IDataObject = {
		...readExtraFields(input, additional),
		...readCoreFields(input, parameters, REQUIRED_FIELDS),
	};
	const formSlug = input.convert(additional.formSlug, 'Form Slug', optionalText);
	if (formSlug !== undefined) registration.type = formSlug;
	const customer = readCustomer(input, (additional.customer as IDataObject | undefined)?.details as IDataObject);
	if (customer !== undefined) registration.customer = customer;
	return registration;
}

/** One POST per batch; one result per entry. */
export const sendBatch = batchSender('registrations', 'registrations', 'registration');
