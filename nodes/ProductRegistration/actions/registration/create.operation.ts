import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../../helpers/fieldMatching';
import { optionalText } from '../../helpers/values';
import {
	autoMapping,
	batchSender,
	batchSizeOption,
	DEFINE_BELOW,
	dataModeProperties,
	inputFields,
	MAP_AUTOMATICALLY,
	onlyWhenDefinedBelow,
} from '../batchCreate';
import { displayFor } from '../displayFor';
import { ItemInput } from '../itemInput';
import { createdOnce, ifExistsOption, settleFirst } from './ifAlreadyRegistered';
import { batchConcurrencyOption, optionsCollection } from '../requestOptions';
import {
	CORE_LABELS,
	coreFieldProperties,
	extraFieldProperties,
	readCoreFields,
	readExtraFields,
} from './registrationFields';

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

/**
 * Map Automatically: the registration's fields and the customer's, by the names spreadsheet columns give them. A
 * customer field is also read from a `customer` object of the item (where `id` is the customer's ID).
 */
const CUSTOMER_FIELD_NAMES: FieldNames = {
	id: ['Customer ID'],
	firstName: ['First Name'],
	lastName: ['Last Name'],
	address1: ['Address', 'Address Line 1', 'Street'],
	address2: ['Address Line 2'],
	city: ['Town'],
	state: ['Region', 'Province'],
	country: ['Country Code'],
	postCode: ['Post Code', 'Zip', 'Zip Code', 'Postal Code'],
	phone: ['Phone Number', 'Telephone'],
};

const REGISTRATION_FIELD_NAMES: FieldNames = {
	productName: ['Product'],
	customerEmail: ['Email', 'E-mail', 'Email Address'],
	customerName: ['Name', 'Full Name'],
	serialNumbers: ['Serial', 'Serials', 'Serial Number', 'Serial No'],
	purchaseDate: ['Date of Purchase', 'Purchased'],
	type: ['Form', 'Form Slug'],
	customer: [],
	// At the top level an "id" column is the row's, not the customer's: only "Customer ID" names the customer.
	...Object.fromEntries(
		Object.entries(CUSTOMER_FIELD_NAMES).map(([field, names]) => [
			`customer.${field}`,
			field === 'id' ? names : [field, ...names],
		]),
	),
};

const REGISTRATION_LABELS: Record<string, string> = {
	...CORE_LABELS,
	type: 'Form Slug',
	customer: 'Customer',
	'customer.id': 'Customer ID',
	...Object.fromEntries(customerFields.map(({ name, displayName }) => [`customer.${name}`, `Customer ${displayName}`])),
};

const registrationMapping = autoMapping(REGISTRATION_FIELD_NAMES, REGISTRATION_LABELS, REQUIRED_FIELDS);
const customerMapping = autoMapping(CUSTOMER_FIELD_NAMES, {}, []);

const IGNORE_UNMATCHED = 'ignore';
const SEND_UNMATCHED = 'sendAsExtraFields';

const properties: INodeProperties[] = [
	...dataModeProperties(
		'registration',
		"Product Name (or Product), Customer Email (Email), Customer Name (Name), Serial Numbers (Serial, Serials), Purchase Date, Form Slug (Form), and the customer's Customer ID, First Name, Last Name, Address, Address Line 2, City, State, Country, Post Code (Zip) and Phone, or a customer object holding them. Other fields are left out unless Options > Unmatched Fields sends them.",
	),
	...onlyWhenDefinedBelow([
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
								...customerFields.map((field): INodeProperties => ({ ...field, type: 'string', default: '' })),
							],
						},
					],
				},
				...extraFieldProperties,
				{
					displayName: 'Form Slug',
					name: 'formSlug',
					type: 'string',
					default: '',
					placeholder: 'extended-warranty',
					description:
						'Store the registration in this form instead of the default product-registration form. The slug is shown in the admin under Form > View on the frontend.',
				},
			],
		},
	]),
	optionsCollection([
		batchSizeOption('registrations'),
		batchConcurrencyOption,
		ifExistsOption,
		{
			displayName: 'Unmatched Fields',
			name: 'unmatchedFields',
			type: 'options',
			displayOptions: { show: { '/dataMode': [MAP_AUTOMATICALLY] } },
			options: [
				{ name: 'Ignore', value: IGNORE_UNMATCHED, description: 'Leave out fields that match no registration field' },
				{
					name: 'Send as Extra Form Fields',
					value: SEND_UNMATCHED,
					description: "Send them as extra fields of the registration form, keyed as in the form's design",
				},
			],
			default: IGNORE_UNMATCHED,
			description: "What to do with the input item's fields that match no registration field",
		},
	]),
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

/** Where one registration's values come from, in either mapping mode. */
interface RegistrationValues {
	core: IDataObject;
	/** `extraFields` rows and `extraFieldsJson`, as Additional Fields hold them. */
	extra: IDataObject;
	formSlug: unknown;
	customer: IDataObject | undefined;
}

function valuesFromParameters(input: ItemInput): RegistrationValues {
	const core: IDataObject = {};
	for (const { name } of coreFieldProperties) core[name] = input.raw(name, '') as IDataObject[string];
	const additional = input.collection('additionalFields');
	return {
		core,
		extra: additional,
		formSlug: additional.formSlug,
		customer: (additional.customer as IDataObject | undefined)?.details as IDataObject | undefined,
	};
}

/** Map Automatically: the item's own fields, matched by name; no expression is evaluated. */
function valuesFromInput(input: ItemInput): RegistrationValues {
	const { matched, unmatched } = inputFields(input, registrationMapping);
	const nested = matched.customer;
	if (nested !== undefined && (nested === null || typeof nested !== 'object' || Array.isArray(nested))) {
		throw input.error(`The customer field of item ${input.itemIndex} must be an object with the customer's details`);
	}
	const customer: IDataObject = nested ? { ...customerMapping.match(nested as IDataObject).matched } : {};
	for (const field of Object.keys(CUSTOMER_FIELD_NAMES)) {
		if (matched[`customer.${field}`] !== undefined) customer[field] = matched[`customer.${field}`];
	}
	const sendUnmatched = input.collection('options').unmatchedFields === SEND_UNMATCHED;
	return {
		core: matched,
		extra: sendUnmatched ? { extraFieldsJson: unmatched } : {},
		formSlug: matched.type,
		customer,
	};
}

/** One registration as the API takes it: standard fields, form slug, customer, and extra fields at the top level. */
export function toEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const input = new ItemInput(this, itemIndex);
	const values =
		input.raw('dataMode', DEFINE_BELOW) === MAP_AUTOMATICALLY ? valuesFromInput(input) : valuesFromParameters(input);
	const registration: IDataObject = {
		...readExtraFields(input, values.extra),
		...readCoreFields(input, values.core, REQUIRED_FIELDS),
	};
	const formSlug = input.convert(values.formSlug, 'Form Slug', optionalText);
	if (formSlug !== undefined) registration.type = formSlug;
	const customer = readCustomer(input, values.customer);
	if (customer !== undefined) registration.customer = customer;
	return registration;
}

/** One POST per batch; one result per entry (with If Already Registered, a lost answer resolved by a lookup). */
export const sendBatch = createdOnce(batchSender('registrations', 'registrations', 'registration'));

export { settleFirst };
