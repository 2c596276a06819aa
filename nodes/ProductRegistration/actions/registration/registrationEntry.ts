import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../../helpers/fieldMatching';
import { ItemInput } from '../../input/itemInput';
import { locatorValue, optionalText } from '../../helpers/values';
import { autoMapping, DEFINE_BELOW, inputFields, MAP_AUTOMATICALLY } from '../batchedCreate';
import { CUSTOMER_ALIASES, CUSTOMER_LABELS, readCustomer } from './customerFields';
import { CORE_ALIASES, CORE_LABELS, coreFieldProperties, readCoreFields, readExtraFields } from './registrationFields';
import type { FormFile } from './registrationFiles';
import { describesFile, holdFiles, readFormFiles, refuseTakenFields } from './registrationFiles';

/**
 * One item's registration, as an operation that registers (Create, Create or Update) reads it from the item: from the
 * node's parameters (Define Below) or from the item's own fields matched by name (Map Automatically), then converted
 * and checked before anything is sent.
 */

/** The standard fields a registration cannot be created without. */
export const REQUIRED_FIELDS = ['productName', 'customerEmail'];

/**
 * Map Automatically: every field a registration takes, by its own name and its aliases. A customer field is matched
 * at the top level of the item (`customer.<field>`) or inside a `customer` object of the item.
 */
const REGISTRATION_FIELD_NAMES: FieldNames = {
	...CORE_ALIASES,
	type: ['Form', 'Form Slug'],
	customer: [],
	// At the top level an "id" column is the row's, not the customer's: only "Customer ID" names the customer.
	...Object.fromEntries(
		Object.entries(CUSTOMER_ALIASES).map(([field, names]) => [
			`customer.${field}`,
			field === 'id' ? names : [field, ...names],
		]),
	),
};

const REGISTRATION_LABELS: Record<string, string> = {
	...CORE_LABELS,
	type: 'Form Slug',
	customer: 'Customer',
	...Object.fromEntries(Object.entries(CUSTOMER_LABELS).map(([field, label]) => [`customer.${field}`, label])),
};

const registrationMapping = autoMapping(REGISTRATION_FIELD_NAMES, REGISTRATION_LABELS, REQUIRED_FIELDS);
const customerMapping = autoMapping(CUSTOMER_ALIASES, {}, []);

const IGNORE_UNMATCHED = 'ignore';
const SEND_UNMATCHED = 'sendAsExtraFields';

/** Map Automatically's option for the item's fields that match no registration field. */
export const unmatchedFieldsOption: INodeProperties = {
	displayName: 'Unmatched Fields',
	name: 'unmatchedFields',
	type: 'options',
	options: [
		{ name: 'Ignore', value: IGNORE_UNMATCHED, description: 'Leave out fields that match no registration field' },
		{
			name: 'Send as Extra Form Fields',
			value: SEND_UNMATCHED,
			description: "Send them as extra fields of the registration form, keyed as in the form's design",
		},
	],
	default: IGNORE_UNMATCHED,
	description: "What to do with the input item's fields that match no registration field. Defaults to Ignore.",
};

/** Where one registration's values come from, in either mapping mode. */
interface RegistrationValues {
	core: IDataObject;
	/** `extraFields` rows and `extraFieldsJson`, as Additional Fields hold them. */
	extra: IDataObject;
	formSlug: unknown;
	customer: IDataObject | undefined;
	files: FormFile[];
	/** Where a standard field sits among the node's parameters, when the values were read from them. */
	parameterPath?: (key: string) => string;
}

function valuesFromParameters(input: ItemInput): RegistrationValues {
	const core: IDataObject = {};
	for (const { name } of coreFieldProperties) core[name] = input.raw(name, '') as IDataObject[string];
	const additional = input.collection('additionalFields');
	return {
		core,
		extra: additional,
		formSlug: locatorValue(additional.formSlug),
		customer: (additional.customer as IDataObject | undefined)?.details as IDataObject | undefined,
		files: readFormFiles(input, additional.files),
		parameterPath: (key) => key,
	};
}

/** Map Automatically: the item's own fields, matched by name; no expression is evaluated. */
function valuesFromInput(input: ItemInput): RegistrationValues {
	const { matched, unmatched } = inputFields(input, registrationMapping);
	const nested = matched.customer;
	if (nested !== undefined && (nested === null || typeof nested !== 'object' || Array.isArray(nested))) {
		throw input.error("The item's 'customer' field must be an object with the customer's details");
	}
	const customer: IDataObject = nested ? { ...customerMapping.match(nested as IDataObject).matched } : {};
	for (const field of Object.keys(CUSTOMER_ALIASES)) {
		if (matched[`customer.${field}`] !== undefined) customer[field] = matched[`customer.${field}`];
	}
	const options = input.collection('options');
	const files = readFormFiles(input, options.files, options.uploadEveryFile === true);
	// A form's file field also leaves its file's name and size under its label: the file's URL is sent instead.
	const extra = Object.fromEntries(Object.entries(unmatched).filter(([key]) => !describesFile(key, files)));
	return {
		core: matched,
		extra: options.unmatchedFields === SEND_UNMATCHED ? { extraFieldsJson: extra } : {},
		formSlug: matched.type,
		customer,
		files,
	};
}

/** One registration as the API takes it: standard fields, form slug, customer, and extra fields at the top level. */
export function registrationEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const input = new ItemInput(this, itemIndex);
	const values =
		input.raw('dataMode', DEFINE_BELOW) === MAP_AUTOMATICALLY ? valuesFromInput(input) : valuesFromParameters(input);
	const registration: IDataObject = {
		...readExtraFields(input, values.extra),
		...readCoreFields(input, values.core, REQUIRED_FIELDS, values.parameterPath),
	};
	const formSlug = input.convert(values.formSlug, "'Form'", optionalText);
	if (formSlug !== undefined) registration.type = formSlug;
	const customer = readCustomer(input, values.customer);
	if (customer !== undefined) registration.customer = customer;
	refuseTakenFields(input, values.files, registration);
	holdFiles(registration, values.files);
	return registration;
}
