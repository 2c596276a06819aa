import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../../helpers/fieldMatching';
import type { ItemInput } from '../../input/itemInput';
import {
	optionalCalendarDate,
	optionalEmail,
	optionalJsonObject,
	optionalText,
	optionalTextList,
	requiredText,
} from '../../helpers/values';
import type { ModelArgument } from '../toolFields';

/**
 * The registration's standard fields, as the API names them: the parameter (Create shows them on top, Update inside
 * "Update Fields"), how a mapped value is converted, the other names Map Automatically knows the field by, and what a
 * model filling it as a tool's argument is told.
 */
const STANDARD_FIELDS: Array<{
	property: INodeProperties;
	convert: (value: unknown) => unknown;
	aliases: string[];
	forModel: string;
}> = [
	{
		property: {
			displayName: 'Product Name',
			name: 'productName',
			type: 'string',
			default: '',
			placeholder: 'e.g. Kettle K1',
			description: 'Name of the product being registered',
		},
		convert: optionalText,
		aliases: ['Product'],
		forModel: "The product's name as the shop sells it, e.g. Kettle K1.",
	},
	{
		property: {
			displayName: 'Customer Email',
			name: 'customerEmail',
			type: 'string',
			default: '',
			placeholder: 'e.g. nathan@example.com',
			description: "The customer's email address",
		},
		convert: optionalEmail,
		aliases: ['Email', 'E-mail', 'Email Address'],
		forModel: "The customer's email address, e.g. ann.lee@example.com.",
	},
	{
		property: {
			displayName: 'Customer Name',
			name: 'customerName',
			type: 'string',
			default: '',
			placeholder: 'e.g. Nathan Smith',
			description: "The customer's full name",
		},
		convert: optionalText,
		aliases: ['Name', 'Full Name'],
		forModel: "The customer's full name, e.g. Ann Lee.",
	},
	{
		property: {
			displayName: 'Serial Numbers',
			name: 'serialNumbers',
			type: 'string',
			default: '',
			placeholder: 'e.g. KT-2024-0001, KT-2024-0002',
			description:
				'Serial numbers being registered: comma-separated text, or a list mapped from the input. Known serial numbers become registered.',
		},
		convert: optionalTextList,
		aliases: ['Serial', 'Serials', 'Serial Number', 'Serial No'],
		forModel: "The product's serial numbers exactly as printed, comma-separated, e.g. KT-2024-0001, KT-2024-0002.",
	},
	{
		property: {
			displayName: 'Purchase Date',
			name: 'purchaseDate',
			type: 'dateTime',
			default: '',
			description:
				'When the product was bought: 2024-03-01, an ISO timestamp, or a date from an expression such as {{ $now }}. Sent as YYYY-MM-DD.',
		},
		convert: optionalCalendarDate,
		aliases: ['Date of Purchase', 'Purchased'],
		forModel: 'The day the customer bought the product, as YYYY-MM-DD, e.g. 2024-03-01.',
	},
];

export const coreFieldProperties: INodeProperties[] = STANDARD_FIELDS.map(({ property }) => property);

/** The standard fields' keys in the API. */
export const CORE_KEYS = coreFieldProperties.map(({ name }) => name);

/** The standard fields' names as the editor shows them, for messages. */
export const CORE_LABELS: Record<string, string> = Object.fromEntries(
	coreFieldProperties.map(({ name, displayName }) => [name, displayName]),
);

/**
 * What a model filling the standard fields is told, by field name: those in `required` it must give; the others it
 * may leave out (`leftOut` says what that does), which is the same as leaving the field empty.
 */
export function coreFieldArguments(required: string[], leftOut: string): Record<string, ModelArgument> {
	return Object.fromEntries(
		STANDARD_FIELDS.map(({ property: { name }, forModel }) => [
			name,
			required.includes(name) ? { description: forModel } : { description: `${forModel} ${leftOut}`, whenLeftOut: '' },
		]),
	);
}

/** The other names Map Automatically knows each standard field by. */
export const CORE_ALIASES: FieldNames = Object.fromEntries(
	STANDARD_FIELDS.map(({ property, aliases }) => [property.name, aliases]),
);

export const extraFieldProperties: INodeProperties[] = [
	{
		displayName: 'Extra Fields',
		name: 'extraFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Extra Field',
		default: {},
		description: "Fields of the registration form beyond the standard ones, keyed as in the form's design",
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. greetings',
						description: "The field's key in the form design",
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
					},
				],
			},
		],
	},
	{
		displayName: 'Extra Fields (JSON)',
		name: 'extraFieldsJson',
		type: 'json',
		default: '',
		placeholder: 'e.g. { "greetings": "hi" }',
		description:
			'Extra form fields as one JSON object, e.g. a whole column set from a sheet. Merged with the Extra Fields rows; a row wins when both name the same field.',
	},
];

/** Keys the API gives a meaning of its own; an extra field of that name would overwrite them (or the token). */
const RESERVED_KEYS = new Set([...CORE_KEYS, 'type', 'customer', 'fields', 'accessToken']);

export function isReservedKey(name: string): boolean {
	return RESERVED_KEYS.has(name);
}

/**
 * The standard fields set in `values`, converted to what the API takes; blank ones are left out.
 * `required` names those that must not be blank; `parameterPath` says where a field sits among the node's parameters
 * (`updateFields.productName`), when the values were read from them.
 */
export function readCoreFields(
	input: ItemInput,
	values: IDataObject,
	required: string[] = [],
	parameterPath?: (key: string) => string,
): IDataObject {
	const fields: IDataObject = {};
	for (const { property, convert } of STANDARD_FIELDS) {
		const { name: key, displayName: label } = property;
		const path = parameterPath?.(key);
		const value = input.convert(values[key], `'${label}'`, convert, path);
		if (value === undefined) {
			if (required.includes(key)) input.convert(undefined, `'${label}'`, requiredText, path);
			continue;
		}
		fields[key] = value as IDataObject[string];
	}
	return fields;
}

/** Extra form fields from the name/value rows and the JSON object, merged (rows win). */
export function readExtraFields(input: ItemInput, values: IDataObject): IDataObject {
	const fromJson = input.convert(values.extraFieldsJson, "'Extra Fields (JSON)'", optionalJsonObject) ?? {};
	const rows = ((values.extraFields as IDataObject | undefined)?.field as IDataObject[] | undefined) ?? [];
	const extra: IDataObject = { ...fromJson };
	rows.forEach((row, rowIndex) => {
		const name = input.convert(row.name, `name in row ${rowIndex + 1} of 'Extra Fields'`, requiredText);
		extra[name] = row.value as IDataObject[string];
	});
	for (const name of Object.keys(extra)) {
		if (isReservedKey(name)) {
			throw input.error(
				`The extra field '${name}' has the name of a standard field; set it with its own parameter instead`,
			);
		}
	}
	return extra;
}
