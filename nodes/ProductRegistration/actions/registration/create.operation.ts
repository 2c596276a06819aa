import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { IfAlreadyRegistered } from '../../input/runOptions';
import { readIfAlreadyRegistered } from '../../input/runOptions';
import { dataModeProperties, onlyWhenDefinedBelow, onlyWhenMappedAutomatically } from '../batchedCreate';
import type { BatchExecute } from '../operation';
import { batchConcurrencyOption, batchSizeOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, toolAnswerProperty, toolDescriptionProperty } from '../toolFields';
import { simplifyProperty } from '../toolAnswer';
import { customerProperty } from './customerFields';
import { formProperty } from '../../../shared/formField';
import { ifExistsOption } from './ifAlreadyRegistered/ifAlreadyRegistered';
import { coreFieldArguments, coreFieldProperties, extraFieldProperties } from './registrationFields';
import { REQUIRED_FIELDS, registrationEntry, unmatchedFieldsOption } from './registrationEntry';
import { filesProperty, uploadEveryFileOption } from './registrationFiles';
import { sendRegistrations } from './sendRegistrations';

/**
 * The parameters of an operation that registers: Create, and Create or Update, which has them all but If Already
 * Registered (it always updates what is registered already).
 */
const registeringProperties = (ifAlreadyRegistered: boolean): INodeProperties[] => [
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
				customerProperty,
				...extraFieldProperties,
				filesProperty,
				formProperty(
					'Store the registration in this form instead of the default product-registration form (sent as its slug)',
				),
			],
		},
	]),
	simplifyProperty,
	optionsCollection([
		batchSizeOption('registrations'),
		batchConcurrencyOption,
		...(ifAlreadyRegistered ? [ifExistsOption] : []),
		...onlyWhenMappedAutomatically([filesProperty, uploadEveryFileOption, unmatchedFieldsOption]),
	]),
];

/** The description of an operation that registers (`create`, or `upsert`: Create or Update), with its tool's. */
export function registeringDescription(operation: 'create' | 'upsert', toolDescription: string): INodeProperties[] {
	return displayFor('registration', operation, [
		toolDescriptionProperty(toolDescription),
		...filledByModelAsTool(
			registeringProperties(operation === 'create'),
			coreFieldArguments(REQUIRED_FIELDS, 'Leave out when not known.'),
		),
		toolAnswerProperty,
	]);
}

export const description = registeringDescription(
	'create',
	"Register a product for a customer in the shop's product-registration app. Needs the product's name and the customer's email address; the customer's name, the serial numbers (comma-separated) and the purchase date (YYYY-MM-DD) may be left out. Answers with the new registration: its id (what changing its status needs), product, customer, serial numbers, purchase date, status and form.",
);

/**
 * Each item's registration, built and checked before anything is sent (registrationEntry.ts); then sent as
 * sendRegistrations.ts says, with If Already Registered as `ifAlreadyRegistered` gives it: read from Options (Create),
 * or Update (Create or Update).
 */
export function registering(ifAlreadyRegistered: (context: IExecuteFunctions) => IfAlreadyRegistered): BatchExecute {
	return {
		entry: registrationEntry,
		async send(pending, inBatches) {
			return await sendRegistrations.call(this, pending, inBatches, ifAlreadyRegistered(this));
		},
	};
}

export const runs = 'inBatches';

export const answers = 'registrations';

export const execute: BatchExecute = registering(readIfAlreadyRegistered);
