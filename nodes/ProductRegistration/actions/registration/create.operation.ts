import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FieldNames } from '../../helpers/fieldMatching';
import { ItemInput } from '../../input/itemInput';
import type { IfAlreadyRegistered } from '../../input/runOptions';
import { CREATE_ANYWAY, DEFAULT_CONCURRENCY, readIfAlreadyRegistered } from '../../input/runOptions';
import { runConcurrently } from '../../helpers/concurrency';
import { locatorValue, optionalText } from '../../helpers/values';
import {
	autoMapping,
	batchSender,
	DEFINE_BELOW,
	dataModeProperties,
	inputFields,
	MAP_AUTOMATICALLY,
	onlyWhenDefinedBelow,
	onlyWhenMappedAutomatically,
} from '../batchedCreate';
import type { BatchExecute, BatchSender, EntryOutcome, PendingEntry, SendInBatches } from '../operation';
import { batchConcurrencyOption, batchSizeOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, toolAnswerProperty, toolDescriptionProperty } from '../toolFields';
import { simplifyProperty } from '../toolAnswer';
import { CUSTOMER_ALIASES, CUSTOMER_LABELS, customerProperty, readCustomer } from './customerFields';
import { formProperty } from '../../../shared/formField';
import {
	decideIfAlreadyRegistered,
	ifExistsOption,
	sendUpdates,
	unsentOutcome,
} from './ifAlreadyRegistered/ifAlreadyRegistered';
import { resolvingLostCreates } from './ifAlreadyRegistered/lostCreate';
import {
	CORE_ALIASES,
	CORE_LABELS,
	coreFieldArguments,
	coreFieldProperties,
	extraFieldProperties,
	readCoreFields,
	readExtraFields,
} from './registrationFields';
import type { FormFile } from './registrationFiles';
import {
	describesFile,
	filesProperty,
	holdFiles,
	hasFiles,
	readFormFiles,
	refuseTakenFields,
	uploadEveryFileOption,
	uploadFilesOf,
	withFilesSent,
} from './registrationFiles';

const REQUIRED_FIELDS = ['productName', 'customerEmail'];

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
		...onlyWhenMappedAutomatically([
			filesProperty,
			uploadEveryFileOption,
			{
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
				description: "What to do with the input item's fields that match no registration field",
			},
		]),
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
function registrationEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
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

const postRegistrations: BatchSender = batchSender('registrations', 'registrations', 'registration');

/**
 * The run's registrations, sent: If Already Registered decides first what is registered already (skipped, updated,
 * or repeating an earlier item); then the files of the registrations to create or update are uploaded — one that
 * exists already uploads nothing, and an item whose file cannot be uploaded fails without being sent; then the
 * updates, and the creates in batches (one POST each), a batch whose answer is lost resolved by a lookup instead of
 * being sent again (its files are not uploaded again).
 */
async function sendRegistrations(
	this: IExecuteFunctions,
	pending: PendingEntry[],
	inBatches: SendInBatches,
	ifExists: IfAlreadyRegistered,
): Promise<EntryOutcome[]> {
	const decisions = await decideIfAlreadyRegistered.call(this, pending, ifExists);
	const toUpload = pending.flatMap(({ entry }, position) =>
		hasFiles(entry) && ['create', 'update'].includes(decisions[position].kind) ? [position] : [],
	);
	await runConcurrently(toUpload.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const position = toUpload[index];
		const { entry, itemIndex } = pending[position];
		await uploadFilesOf
			.call(this, entry, itemIndex)
			.catch((error: unknown) => (decisions[position] = { kind: 'fail', error }));
	});

	const outcomes: EntryOutcome[] = new Array(pending.length);
	await sendUpdates.call(this, pending, decisions, outcomes);
	const toCreate = decisions.flatMap((decision, position) => (decision.kind === 'create' ? [position] : []));
	const send = ifExists === CREATE_ANYWAY ? postRegistrations : resolvingLostCreates(postRegistrations);
	const created = await inBatches(
		toCreate.map((position) => pending[position]),
		async function sendBatch(this: IExecuteFunctions, entries, itemIndexes) {
			const results = await send.call(this, entries, itemIndexes);
			return results.map((result, position) => withFilesSent(result, entries[position]));
		},
	);
	toCreate.forEach((position, index) => (outcomes[position] = created[index]));
	decisions.forEach((decision, position) => {
		outcomes[position] ??= unsentOutcome(decision, pending, outcomes)!;
	});
	return outcomes;
}

/**
 * Each item's registration, built and checked before anything is sent; then sent as sendRegistrations says, with If
 * Already Registered as `ifAlreadyRegistered` gives it: read from Options (Create), or Update (Create or Update).
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
