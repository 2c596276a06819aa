import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../../helpers/fieldMatching';
import type { ItemInput } from '../../input/itemInput';
import { optionalText } from '../../helpers/values';

/**
 * The customer of a registration (Create > Additional Fields > Customer): each field's parameter, and the other names
 * Map Automatically knows it by — a sheet's column, or a key of a `customer` object of the item.
 */
const CUSTOMER_FIELDS: Array<{ property: INodeProperties; aliases: string[] }> = [
	{
		property: {
			displayName: 'Customer ID',
			name: 'id',
			type: 'string',
			default: '',
			placeholder: 'e.g. 4567',
			description: "The customer's ID in the shop platform (a number)",
		},
		aliases: ['Customer ID'],
	},
	{ property: text('firstName', 'First Name'), aliases: ['First Name'] },
	{ property: text('lastName', 'Last Name'), aliases: ['Last Name'] },
	{ property: text('address1', 'Address Line 1'), aliases: ['Address', 'Address Line 1', 'Street'] },
	{ property: text('address2', 'Address Line 2'), aliases: ['Address Line 2'] },
	{ property: text('city', 'City'), aliases: ['Town'] },
	{
		property: text('state', 'State', {
			placeholder: 'e.g. NY',
			description: 'State or region. Sent to the service under the key "State" (capital S), as its API expects.',
		}),
		aliases: ['Region', 'Province'],
	},
	{
		property: text('country', 'Country Code', { placeholder: 'e.g. US', description: 'Country code, e.g. US or DE' }),
		aliases: ['Country Code'],
	},
	{ property: text('postCode', 'Post Code'), aliases: ['Post Code', 'Zip', 'Zip Code', 'Postal Code'] },
	{ property: text('phone', 'Phone'), aliases: ['Phone Number', 'Telephone'] },
];

function text(name: string, displayName: string, more: Partial<INodeProperties> = {}): INodeProperties {
	return { displayName, name, type: 'string', default: '', ...more };
}

/** The other names Map Automatically knows each customer field by. */
export const CUSTOMER_ALIASES: FieldNames = Object.fromEntries(
	CUSTOMER_FIELDS.map(({ property, aliases }) => [property.name, aliases]),
);

/** Each customer field's name as the editor shows it, for messages. */
export const CUSTOMER_LABELS: Record<string, string> = Object.fromEntries(
	CUSTOMER_FIELDS.map(({ property: { name, displayName } }) => [
		name,
		name === 'id' ? displayName : `Customer ${displayName}`,
	]),
);

/** The `customer` option of Create's Additional Fields: one group of the customer's fields, stored as `details`. */
export const customerProperty: INodeProperties = {
	displayName: 'Customer',
	name: 'customer',
	type: 'fixedCollection',
	placeholder: 'Add Customer Details',
	default: {},
	description: "The customer's platform ID and address",
	options: [{ displayName: 'Details', name: 'details', values: CUSTOMER_FIELDS.map(({ property }) => property) }],
};

/** The customer object as the API spells it (`State` with a capital S); blank values left out. */
export function readCustomer(input: ItemInput, details: IDataObject | undefined): IDataObject | undefined {
	if (!details) return undefined;
	const customer: IDataObject = {};
	const id = details.id;
	if (id !== undefined && id !== '' && id !== 0 && id !== null) {
		const numericId = Number(id);
		if (!Number.isInteger(numericId) || numericId < 1) {
			throw input.error(`The 'Customer ID' is not a customer ID: ${JSON.stringify(id)}`);
		}
		customer.id = numericId;
	}
	for (const [name, label] of Object.entries(CUSTOMER_LABELS)) {
		if (name === 'id') continue;
		const value = input.convert(details[name], `'${label}'`, optionalText);
		if (value !== undefined) customer[name === 'state' ? 'State' : name] = value;
	}
	return Object.keys(customer).length === 0 ? undefined : customer;
}
