import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type {
	FromAIArgument,
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { FROM_AI_AUTO_GENERATED_MARKER, traverseNodeParameters } from 'n8n-workflow';

import { testCredential } from '../../harness/editorCalls.cts';
import {
	askedCredentials,
	built,
	defaultTypeProblems,
	displayOptionProblems,
	editorParameters,
	neverShownProperties,
	offeredCollectionOptions,
	offeredOperations,
	offeredValues,
	parameterIssues,
	placeholders,
	longTooltips,
	newestVersion,
	shownProperties,
	unsortedCollections,
	unsupportedValues,
	versionsOf,
} from '../../harness/editorView.cts';
import { asToolType } from '../../harness/toolType.cts';
import { runNode } from '../../harness/workflowRunner.cts';

/** The resources and operations of ../shared/interface.md: what saved workflows hold and the editor must offer. */
const INTERFACE: Record<string, string[]> = {
	file: ['upload'],
	registration: ['create', 'delete', 'getAll', 'update', 'updateStatus'],
	serialNumber: ['create', 'get', 'getUnregistered'],
};

/**
 * Parameters each operation cannot run without: the editor must mark them required. An operation added later must
 * be named here too, or its test fails.
 */
const REQUIRED: Record<string, string[]> = {
	'file.upload': ['binaryPropertyName'],
	'registration.create': ['customerEmail', 'productName'],
	'registration.delete': ['registrationId'],
	'registration.getAll': [],
	'registration.update': ['registrationId'],
	'registration.upsert': ['customerEmail', 'productName'],
	'registration.updateStatus': ['registrationId', 'status'],
	'serialNumber.create': ['serialNumber'],
	'serialNumber.get': ['serialNumber'],
	'serialNumber.getUnregistered': [],
};

/** What a user types into each required parameter; a resource locator holds its value with the mode it came from. */
const FILLED: INodeParameters = {
	binaryPropertyName: 'data',
	customerEmail: 'ann.lee@example.com',
	productName: 'Kettle K1',
	registrationId: { __rl: true, mode: 'id', value: 'R000001' },
	serialNumber: 'KT-1',
	status: 'Confirmed',
};

/** The operations that answer with registrations: Simplify (for a person) and Output (for a model) shape them. */
const ANSWER_REGISTRATIONS = ['create', 'getAll', 'update', 'updateStatus', 'upsert'];

const node = built.node();
const description = node.description;
const sorted = (record: Record<string, string[]>) =>
	Object.fromEntries(Object.entries(record).map(([key, values]) => [key, [...values].sort()]));

/** A copy of the node's description with one property changed, to prove the checks see what they are for. */
function withProperty(name: string, change: (property: INodeProperties) => INodeProperties): INodeTypeDescription {
	const copy = structuredClone(description);
	const index = copy.properties.findIndex((property) => property.name === name);
	copy.properties[index] = change(copy.properties[index]);
	return copy;
}

const runnable = built.runnableOperations();
const operations = Object.entries(runnable).flatMap(([resource, names]) =>
	names.map((operation) => ({ resource, operation })),
);

describe('the editor: choosing what to do', () => {
	test('the Resource dropdown, then the Operation dropdown of each resource, offer exactly what the node runs', () => {
		expect(sorted(offeredOperations(description))).toEqual(runnable);
	});

	test('every operation of the interface is among them', () => {
		for (const [resource, names] of Object.entries(INTERFACE))
			expect(runnable[resource]).toEqual(expect.arrayContaining(names));
	});

	test('every operation it runs has the parameters it cannot run without named in REQUIRED', () => {
		expect(operations.map(({ resource, operation }) => `${resource}.${operation}`).sort()).toEqual(
			Object.keys(REQUIRED).sort(),
		);
	});

	test('a resource missing from the Resource dropdown is seen, and a workflow using it shows "not supported"', () => {
		const withoutSerialNumbers = withProperty('resource', (property) => ({
			...property,
			options: property.options!.filter((option) => (option as { value: string }).value !== 'serialNumber'),
		}));

		expect(sorted(offeredOperations(withoutSerialNumbers))).not.toEqual(runnable);
		expect(
			unsupportedValues(
				withoutSerialNumbers.properties,
				{ resource: 'serialNumber', operation: 'get' },
				withoutSerialNumbers,
			),
		).toContain('resource: "serialNumber" is not one of the offered values');
	});

	test('every resource locator searches with a method the node has', () => {
		const methods = Object.keys(node.methods?.listSearch ?? {});
		const searched = description.properties
			.filter((property) => property.type === 'resourceLocator')
			.flatMap((property) => property.modes ?? [])
			.map((mode) => mode.typeOptions?.searchListMethod)
			.filter((method) => method !== undefined);

		expect(searched.length).toBeGreaterThan(0);
		for (const method of searched) expect(methods).toContain(method);
	});
});

/** Each operation in each version of the node: a node keeps the version it was added with. */
const operationsInEachVersion = operations.flatMap((entry) =>
	versionsOf(description).map((typeVersion) => ({ ...entry, typeVersion })),
);

describe.each(operationsInEachVersion)(
	'the editor: $resource → $operation, version $typeVersion',
	({ resource, operation, typeVersion }) => {
		const fresh = editorParameters(description, { resource, operation }, typeVersion);
		const key = `${resource}.${operation}`;

		test('a fresh node stores only values the editor offers', () => {
			expect(unsupportedValues(description.properties, fresh, description, typeVersion)).toEqual([]);
		});

		test('the parameters it cannot run without are marked required, and flagged until filled', () => {
			const shown = shownProperties(description, fresh, typeVersion);
			const required = shown.filter((property) => property.required).map((property) => property.name);
			const isEmpty = (value: unknown) => value === '' || (value as { value?: unknown })?.value === '';
			const expected = REQUIRED[key];
			expect(expected).toBeDefined();
			const emptyByDefault = expected.filter((name) =>
				isEmpty(shown.find((property) => property.name === name)?.default),
			);

			expect(required.sort()).toEqual(expected);
			expect(parameterIssues(description, { typeVersion, parameters: { resource, operation } })).toEqual(
				emptyByDefault,
			);
			const filled = Object.fromEntries(expected.map((name) => [name, FILLED[name] ?? 'filled']));
			expect(parameterIssues(description, { typeVersion, parameters: { resource, operation, ...filled } })).toEqual([]);
		});
	},
);

describe('the editor: files of a registration', () => {
	const create = { resource: 'registration', operation: 'create' };

	test('Create offers Files to Upload under Additional Fields when the fields are defined below', () => {
		expect(offeredCollectionOptions(description, editorParameters(description, create), 'additionalFields')).toContain(
			'Files to Upload',
		);
	});

	test('with Map Automatically, Options offer Files to Upload and Upload Every File; defined below, they do not', () => {
		const mapped = editorParameters(description, { ...create, dataMode: 'autoMapInputData' });
		const below = editorParameters(description, create);

		expect(offeredCollectionOptions(description, mapped, 'options')).toEqual(
			expect.arrayContaining(['Files to Upload', 'Upload Every File', 'Unmatched Fields']),
		);
		expect(offeredCollectionOptions(description, below, 'options')).not.toContain('Files to Upload');
		expect(offeredCollectionOptions(description, below, 'options')).not.toContain('Upload Every File');
	});

	test('Update offers Files to Upload under Update Fields', () => {
		const update = editorParameters(description, { resource: 'registration', operation: 'update' });
		expect(offeredCollectionOptions(description, update, 'updateFields')).toContain('Files to Upload');
	});
});

describe('the editor: the form', () => {
	const formOption = (collection: string) =>
		(description.properties.find((property) => property.name === collection)!.options as INodeProperties[]).find(
			(option) => option.name === 'formSlug',
		)!;

	test.each([
		['create', 'additionalFields'],
		['getAll', 'filters'],
	])(
		'registration → %s offers Form under %s, picked From List (the forms search) or By Slug',
		(operation, collection) => {
			const parameters = editorParameters(description, { resource: 'registration', operation });

			expect(offeredCollectionOptions(description, parameters, collection)).toContain('Form');
			const form = formOption(collection);
			expect(form.type).toBe('resourceLocator');
			expect(form.modes?.map((mode) => [mode.name, mode.displayName])).toEqual([
				['list', 'From List'],
				['id', 'By Slug'],
			]);
			expect(form.modes?.[0].typeOptions).toEqual({ searchListMethod: 'searchForms', searchable: true });
		},
	);

	test('a node saved by 0.3 with the form typed as text opens with no issue and no unsupported value', () => {
		const savedBy03 = {
			resource: 'registration',
			operation: 'getAll',
			returnAll: true,
			filters: { formSlug: 'extended-warranty' },
		};

		expect(parameterIssues(description, { typeVersion: 1, parameters: savedBy03 })).toEqual([]);
		expect(unsupportedValues(description.properties, savedBy03, description, 1)).toEqual([]);
	});
});

describe('the editor: Status (Change Status)', () => {
	const changeStatus = { resource: 'registration', operation: 'updateStatus', registrationId: FILLED.registrationId };
	const statusShown = (parameters: INodeParameters, typeVersion: number) =>
		shownProperties(description, parameters, typeVersion).find((property) => property.name === 'status')!;

	test('a node added now (version 1.1) offers the four statuses the admin shows, Confirmed by default', () => {
		expect(newestVersion(description)).toBe(1.1);
		const fresh = editorParameters(description, changeStatus);
		expect(offeredValues(description, fresh, 'status')).toEqual([
			'Confirmed',
			'Processing',
			'Requested',
			'Unqualified',
		]);
		expect(fresh.status).toBe('Confirmed');
	});

	test('a node saved before 0.6 (version 1) keeps its text field: a status typed there opens as it was, with no issue', () => {
		const savedBy05 = { ...changeStatus, status: 'receipt received' };

		expect(statusShown(savedBy05, 1).type).toBe('string');
		expect(editorParameters(description, savedBy05, 1).status).toBe('receipt received');
		expect(parameterIssues(description, { typeVersion: 1, parameters: savedBy05 })).toEqual([]);
		expect(unsupportedValues(description.properties, savedBy05, description, 1)).toEqual([]);
	});

	test.each([
		['an expression', '={{ $json.status }}'],
		['a fixed expression', '=on hold'],
		['a value saved outside the four (an imported or hand-written workflow)', 'on hold'],
	])('version 1.1 takes %s as it is held, and the editor flags nothing', (_, status) => {
		const saved = { ...changeStatus, status };

		expect(statusShown(saved, 1.1).type).toBe('options');
		expect(editorParameters(description, saved).status).toBe(status);
		expect(parameterIssues(description, { parameters: saved })).toEqual([]);
		expect(unsupportedValues(description.properties, saved, description)).toEqual([]);
	});

	test('the check sees a value outside the options: without allowArbitraryValues the editor would say it is not supported', () => {
		const strict = structuredClone(description);
		for (const property of strict.properties) delete property.allowArbitraryValues;

		expect(unsupportedValues(strict.properties, { ...changeStatus, status: 'on hold' }, strict)).toEqual([
			'status: "on hold" is not one of the offered values',
		]);
	});
});

describe('the editor: Simplify', () => {
	const answersRegistrations = (resource: string, operation: string) =>
		resource === 'registration' && ANSWER_REGISTRATIONS.includes(operation);

	test('a node added now (version 1.1) stores Simplify, on, exactly where the node answers with registrations', () => {
		const stored = operations.map(({ resource, operation }) => [
			`${resource}.${operation}`,
			editorParameters(description, { resource, operation }).simplify,
		]);
		expect(stored).toEqual(
			operations.map(({ resource, operation }) => [
				`${resource}.${operation}`,
				answersRegistrations(resource, operation) ? true : undefined,
			]),
		);
	});

	test('a fresh node of version 1.1 stores what version 1 stores, plus Simplify and the Status it sends', () => {
		for (const { resource, operation } of operations) {
			const key = `${resource}.${operation}`;
			expect(editorParameters(description, { resource, operation })).toEqual({
				...STORED_BY_04[key],
				...(answersRegistrations(resource, operation) ? { simplify: true } : {}),
				...(key === 'registration.updateStatus' ? { status: 'Confirmed' } : {}),
			});
		}
	});

	test('a node of version 1 (saved before 0.6) shows no Simplify, so it answers as it did: whole registrations', () => {
		for (const { resource, operation } of operations) {
			const stored = editorParameters(description, { resource, operation }, 1);
			expect(shownProperties(description, stored, 1).map((property) => property.name)).not.toContain('simplify');
		}
	});
});

describe('the editor: Create or Update', () => {
	const registrationOperations = description.properties.find(
		(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes('registration'),
	)!.options as INodePropertyOptions[];

	test('is in the actions panel as "Create or update a registration", beside Create', () => {
		expect(registrationOperations.find((option) => option.value === 'upsert')).toMatchObject({
			name: 'Create or Update',
			action: 'Create or update a registration',
		});
		expect(registrationOperations.find((option) => option.value === 'create')?.name).toBe('Create');
	});

	test.each(['defineBelow', 'autoMapInputData'])(
		'shows what Create shows (%s), but for If Already Registered: it always updates',
		(dataMode) => {
			const create = editorParameters(description, { resource: 'registration', operation: 'create', dataMode });
			const upsert = editorParameters(description, { resource: 'registration', operation: 'upsert', dataMode });
			const names = (parameters: INodeParameters) =>
				shownProperties(description, parameters).map((property) => property.name);
			const options = (parameters: INodeParameters) => offeredCollectionOptions(description, parameters, 'options');

			expect(names(upsert)).toEqual(names(create));
			expect(options(create)).toContain('If Already Registered');
			expect(options(upsert)).toEqual(options(create).filter((option) => option !== 'If Already Registered'));
			expect(offeredCollectionOptions(description, upsert, 'additionalFields')).toEqual(
				offeredCollectionOptions(description, create, 'additionalFields'),
			);
		},
	);
});

describe('the editor: the poll trigger', () => {
	const pollTrigger = built.pollTrigger();
	const pollDescription = pollTrigger.description;
	const fresh = editorParameters(pollDescription, {});

	test('is a polling trigger: the editor adds Poll Times, and it asks for the credential', () => {
		expect(pollDescription.polling).toBe(true);
		expect(Object.keys(fresh)).toEqual(expect.arrayContaining(['pollTimes', 'event', 'formSlug']));
		expect(pollDescription.credentials).toEqual([{ name: 'productRegistrationApi', required: true }]);
		expect(pollDescription.displayName).not.toBe(built.trigger().description.displayName);
	});

	test('offers Trigger On: New Registration, and a Form picked From List or By Slug, searched with a method it has', () => {
		expect(offeredValues(pollDescription, fresh, 'event')).toEqual(['newRegistration']);
		// n8n's name for a trigger's event: "Trigger On"; the saved name stays `event`.
		expect(pollDescription.properties.find((property) => property.name === 'event')?.displayName).toBe('Trigger On');
		const form = pollDescription.properties.find((property) => property.name === 'formSlug')!;
		expect(form.type).toBe('resourceLocator');
		expect(form.modes?.map((mode) => mode.name)).toEqual(['list', 'id']);
		expect(Object.keys(pollTrigger.methods?.listSearch ?? {})).toContain(form.modes?.[0].typeOptions?.searchListMethod);
	});

	test('List Order: a node added now (version 1.1) reads Newest First (or Any Order); one saved before 0.7 (version 1) keeps Learn From the Answers', () => {
		const listOrder = (version: number) => {
			const options = shownProperties(pollDescription, editorParameters(pollDescription, {}, version), version).find(
				(property) => property.name === 'options',
			);
			const order = options?.options?.find((option) => option.name === 'listOrder') as INodeProperties | undefined;
			return { offered: order?.options?.map((option) => (option as { value: string }).value), default: order?.default };
		};
		expect(newestVersion(pollDescription)).toBe(1.1);
		expect(listOrder(1.1)).toEqual({ offered: ['anyOrder', 'newestFirst'], default: 'newestFirst' });
		expect(listOrder(1)).toEqual({ offered: ['learn', 'newestFirst'], default: 'learn' });
	});

	test('a fresh node has no parameter issue and stores only values the editor offers', () => {
		expect(parameterIssues(pollDescription, { parameters: {} })).toEqual([]);
		expect(unsupportedValues(pollDescription.properties, fresh, pollDescription)).toEqual([]);
	});
});

describe('the editor: the webhook trigger', () => {
	const trigger = built.trigger().description;
	const shownNames = (parameters: INodeParameters, typeVersion: number) =>
		shownProperties(trigger, parameters, typeVersion).map((property) => property.name);

	test('a node added now (version 2) offers Authentication, None by default or Shared Secret, and no Shared Secret parameter', () => {
		expect(newestVersion(trigger)).toBe(2);
		const fresh = editorParameters(trigger, {});

		expect(fresh).toEqual({ setupNotice: '', authentication: 'none', splitIntoItems: true, options: {} });
		expect(offeredValues(trigger, fresh, 'authentication')).toEqual(['none', 'sharedSecret']);
		expect(shownNames(fresh, 2)).not.toContain('secret');
		expect(askedCredentials(trigger, fresh)).toEqual([]);
		expect(parameterIssues(trigger, { parameters: {} })).toEqual([]);
	});

	test('with Shared Secret it asks for a Product Registration Webhook API credential, whose secret is a password field and required', () => {
		const guarded = editorParameters(trigger, { authentication: 'sharedSecret' });
		const credential = built.webhookCredential();

		expect(askedCredentials(trigger, guarded)).toEqual([credential.name]);
		expect(trigger.credentials?.find(({ name }) => name === credential.name)?.required).toBe(true);
		expect(credential.displayName).toBe('Product Registration Webhook API');
		expect(credential.properties).toEqual([
			expect.objectContaining({ name: 'secret', type: 'string', typeOptions: { password: true }, required: true }),
		]);
	});

	test('a node saved by 0.6 (version 1) opens with its Shared Secret parameter and value, asks for no credential, and flags nothing', () => {
		const savedBy06 = { splitIntoItems: true, secret: 'secret-saved-in-the-workflow' };
		const opened = editorParameters(trigger, savedBy06, 1);

		expect(opened).toEqual({ setupNotice: '', ...savedBy06, options: {} });
		expect(shownNames(opened, 1)).toEqual(expect.arrayContaining(['secret', 'splitIntoItems']));
		expect(shownNames(opened, 1)).not.toContain('authentication');
		expect(askedCredentials(trigger, opened, 1)).toEqual([]);
		expect(parameterIssues(trigger, { typeVersion: 1, parameters: savedBy06 })).toEqual([]);
		expect(unsupportedValues(trigger.properties, savedBy06, trigger, 1)).toEqual([]);
	});

	test('a fresh node of version 1 stores exactly what a fresh node of 0.6 stored', () => {
		expect(editorParameters(trigger, {}, 1)).toEqual({
			setupNotice: '',
			splitIntoItems: true,
			secret: '',
			options: {},
		});
	});
});

describe('the editor: the description itself', () => {
	test('every displayOptions names a parameter and a value it can have', () => {
		expect(displayOptionProblems(description)).toEqual([]);
		expect(displayOptionProblems(built.toolNode().description)).toEqual([]);
		expect(displayOptionProblems(built.trigger().description)).toEqual([]);
		expect(displayOptionProblems(built.pollTrigger().description)).toEqual([]);
	});

	test('every parameter shows for some resource and operation, on the node or on the node used as a tool', () => {
		expect(neverShownProperties(description, built.toolNode().description)).toEqual([]);
		// Without the tool's view, the fields only a tool shows are never shown.
		expect(neverShownProperties(description)).toEqual(
			expect.arrayContaining([expect.stringMatching(/^toolDescription /)]),
		);
	});

	test('the options of every collection are in alphabetical order', () => {
		expect(unsortedCollections(description)).toEqual([]);
		expect(unsortedCollections(built.trigger().description)).toEqual([]);
		expect(unsortedCollections(built.pollTrigger().description)).toEqual([]);
	});

	test('every default has the type of its parameter', () => {
		expect(defaultTypeProblems(description)).toEqual([]);
		expect(defaultTypeProblems(built.trigger().description)).toEqual([]);
		expect(defaultTypeProblems(built.pollTrigger().description)).toEqual([]);
		expect(defaultTypeProblems({ ...description, properties: built.credential().properties })).toEqual([]);
	});

	test('every placeholder that shows an example value starts with "e.g." (n8n\'s UX guidelines); the others name a button or a list', () => {
		const all = [
			...placeholders(description.properties),
			...placeholders(built.trigger().description.properties),
			...placeholders(built.pollTrigger().description.properties),
			...placeholders(built.credential().properties),
		];
		const examples = all.filter((entry) => !/: (Add [A-Z][a-z]+( [A-Z][a-z]+)*|Select an? [a-z]+\.\.\.)$/.test(entry));

		expect(all.length).toBeGreaterThan(examples.length);
		expect(examples.length).toBeGreaterThan(20);
		expect(examples.filter((entry) => !/: e\.g\. \S/.test(entry))).toEqual([]);
	});

	test('every tooltip is short, at most 40 words (the rest is in the README): parameters, options and dropdown values', () => {
		for (const properties of [
			description.properties,
			built.trigger().description.properties,
			built.pollTrigger().description.properties,
			built.credential().properties,
		]) {
			expect(longTooltips(properties, 40)).toEqual([]);
		}
		expect(longTooltips(description.properties, 35)).not.toEqual([]);
	});

	test('the checks catch a misspelt operation, a parameter that can never show, and a default of the wrong type', () => {
		const misspelt = withProperty('status', (property) => ({
			...property,
			displayOptions: { show: { resource: ['registration'], operation: ['updateStatuss'] } },
		}));
		const wrongDefault = withProperty('status', (property) => ({ ...property, default: 0 }));

		expect(displayOptionProblems(misspelt)).toEqual([
			'status: displayOptions want operation = "updateStatuss", which it cannot be',
		]);
		expect(neverShownProperties(misspelt, asToolType({ ...node, description: misspelt }).description)).toEqual([
			'status ({"resource":["registration"],"operation":["updateStatuss"]})',
		]);
		expect(defaultTypeProblems(wrongDefault)).toEqual(['status: default 0 does not suit a string']);
	});
});

const tool = built.toolNode();
const toolDescription = tool.description;

/**
 * What a model is asked for by each operation used as a tool (n8n's arguments: each `$fromAI` call in the parameters),
 * and whether it must give it; an argument it may leave out has a default, the value of the field left empty.
 */
const MODEL_ARGUMENTS: Record<string, Record<string, 'required' | 'may be left out'>> = {
	'file.upload': {},
	'registration.create': {
		Product_Name: 'required',
		Customer_Email: 'required',
		Customer_Name: 'may be left out',
		Serial_Numbers: 'may be left out',
		Purchase_Date: 'may be left out',
	},
	'registration.upsert': {
		Product_Name: 'required',
		Customer_Email: 'required',
		Customer_Name: 'may be left out',
		Serial_Numbers: 'may be left out',
		Purchase_Date: 'may be left out',
	},
	'registration.delete': { Registration: 'required' },
	'registration.getAll': { Limit: 'may be left out', Customer_Email: 'may be left out' },
	'registration.update': {
		Registration: 'required',
		Customer_Email: 'may be left out',
		Customer_Name: 'may be left out',
		Product_Name: 'may be left out',
		Purchase_Date: 'may be left out',
		Serial_Numbers: 'may be left out',
	},
	'registration.updateStatus': {
		Registration: 'required',
		Status: 'required',
		Visible_to_Customer: 'may be left out',
		Note: 'may be left out',
	},
	'serialNumber.create': { Serial_Number: 'required', SKU: 'may be left out', Customer_Tags: 'may be left out' },
	'serialNumber.get': { Serial_Number: 'required' },
	'serialNumber.getUnregistered': {},
};

/** What each tool's description must tell a model, beyond what it does: formats, statuses, where an ID comes from. */
const TOLD: Record<string, string[]> = {
	'registration.create': ['YYYY-MM-DD', 'comma-separated', 'its id'],
	'registration.getAll': ['how many match', 'Requested, Processing, Confirmed or Unqualified', "registration's id"],
	'registration.update': ['found by its id', 'finding registrations'],
	'registration.upsert': ['YYYY-MM-DD', 'comma-separated', 'its id', 'or update', 'outcome'],
	'registration.updateStatus': ['Requested, Processing, Confirmed and Unqualified', 'found by its id'],
	'registration.delete': ['found by its id'],
	'serialNumber.get': ['found: false'],
	'serialNumber.getUnregistered': ['found: false'],
	'serialNumber.create': ['SKU', 'comma-separated'],
	'file.upload': ['cannot send the file'],
};

/** The arguments n8n makes of a node's parameters, as n8n-core's tool does (create-node-as-tool.ts). */
function modelArguments(parameters: INodeParameters): FromAIArgument[] {
	const found: FromAIArgument[] = [];
	traverseNodeParameters(parameters, found);
	return found;
}

/** Every string in a node's parameters, however deep (collections, resource locators). */
function stringsIn(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
	return [];
}

/**
 * What a fresh node of each operation stored in 0.4, before tools had fields of their own: the plain node of version 1
 * keeps it (Create or Update, new in 0.6, stores what Create stores).
 */
const STORED_BY_04: Record<string, INodeParameters> = {
	'file.upload': { resource: 'file', operation: 'upload', binaryPropertyName: 'data', options: {} },
	'registration.create': {
		resource: 'registration',
		operation: 'create',
		dataMode: 'defineBelow',
		productName: '',
		customerEmail: '',
		customerName: '',
		serialNumbers: '',
		purchaseDate: '',
		additionalFields: {},
		options: {},
	},
	'registration.upsert': {
		resource: 'registration',
		operation: 'upsert',
		dataMode: 'defineBelow',
		productName: '',
		customerEmail: '',
		customerName: '',
		serialNumbers: '',
		purchaseDate: '',
		additionalFields: {},
		options: {},
	},
	'registration.delete': {
		resource: 'registration',
		operation: 'delete',
		registrationId: { __rl: true, mode: 'list', value: '' },
		options: {},
	},
	'registration.getAll': {
		resource: 'registration',
		operation: 'getAll',
		returnAll: false,
		limit: 50,
		filters: {},
		options: {},
	},
	'registration.update': {
		resource: 'registration',
		operation: 'update',
		registrationId: { __rl: true, mode: 'list', value: '' },
		updateFields: {},
		options: {},
	},
	'registration.updateStatus': {
		resource: 'registration',
		operation: 'updateStatus',
		registrationId: { __rl: true, mode: 'list', value: '' },
		status: '',
		isPublic: false,
		additionalFields: {},
		options: {},
	},
	'serialNumber.create': {
		resource: 'serialNumber',
		operation: 'create',
		dataMode: 'defineBelow',
		serialNumber: '',
		sku: '',
		customerTags: '',
		options: {},
	},
	'serialNumber.get': { resource: 'serialNumber', operation: 'get', serialNumber: '', options: {} },
	'serialNumber.getUnregistered': {
		resource: 'serialNumber',
		operation: 'getUnregistered',
		getUnregisteredNotice: '',
		options: {},
	},
};

describe('the editor: the node used as a tool (Product Registration Tool)', () => {
	test('has a Tool Description of its own, so n8n adds none of its generic ones (Set Automatically: "<action> in ...")', () => {
		const names = toolDescription.properties.map((property) => property.name);
		expect(names).toContain('toolDescription');
		expect(names).not.toContain('descriptionType');
		// A node without one gets n8n's.
		const withoutOwn = asToolType({
			...node,
			description: {
				...description,
				properties: description.properties.filter(({ name }) => name !== 'toolDescription'),
			},
		});
		expect(withoutOwn.description.properties.map((property) => property.name)).toContain('descriptionType');
	});

	test('offers Output (Simplified, the default, or Raw) where the operation answers with registrations, and no Simplify', () => {
		for (const operation of ANSWER_REGISTRATIONS) {
			const fresh = editorParameters(toolDescription, { resource: 'registration', operation });
			expect(offeredValues(toolDescription, fresh, 'toolAnswer')).toEqual(['compact', 'whole']);
			expect(fresh.toolAnswer).toBe('compact');
			expect(fresh).not.toHaveProperty('simplify');
		}
		const lookup = editorParameters(toolDescription, { resource: 'serialNumber', operation: 'get' });
		expect(shownProperties(toolDescription, lookup).map((property) => property.name)).not.toContain('toolAnswer');
	});

	test('Get Many offers a model no Return All: its Limit shows without it', () => {
		const fresh = editorParameters(toolDescription, { resource: 'registration', operation: 'getAll' });
		const shown = shownProperties(toolDescription, fresh).map((property) => property.name);
		expect(shown).toEqual(expect.arrayContaining(['limit', 'filters']));
		expect(shown).not.toContain('returnAll');
	});

	test('a tool saved by 0.4 (fields given to the model with the editor button, Return All set) keeps its values', () => {
		const savedBy04 = {
			resource: 'registration',
			operation: 'getAll',
			returnAll: true,
			limit: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Limit', ``, 'number') }}",
			filters: { email: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Customer_Email', ``, 'string') }}" },
		};
		const opened = editorParameters(toolDescription, savedBy04, 1);

		expect(parameterIssues(toolDescription, { typeVersion: 1, parameters: savedBy04 })).toEqual([]);
		expect(unsupportedValues(toolDescription.properties, savedBy04, toolDescription, 1)).toEqual([]);
		expect({ limit: opened.limit, filters: opened.filters }).toEqual({
			limit: savedBy04.limit,
			filters: savedBy04.filters,
		});
		expect(modelArguments(opened).map(({ key }) => key)).toEqual(['Limit', 'Customer_Email']);
	});
});

describe.each(operations)('the editor: $resource → $operation used as a tool', ({ resource, operation }) => {
	const key = `${resource}.${operation}`;
	const fresh = editorParameters(toolDescription, { resource, operation });

	test('shows its Tool Description, which says what the model needs to know', () => {
		const shown = shownProperties(toolDescription, fresh).filter((property) => property.name === 'toolDescription');
		expect(shown).toHaveLength(1);
		expect(fresh.toolDescription).toBe(shown[0].default);
		for (const words of TOLD[key]) expect(fresh.toolDescription).toContain(words);
	});

	test('asks the model for its arguments, each described, only those it needs required', () => {
		const found = modelArguments(fresh);
		expect(
			Object.fromEntries(
				found.map((argument) => [argument.key, argument.defaultValue === undefined ? 'required' : 'may be left out']),
			),
		).toEqual(MODEL_ARGUMENTS[key]);
		for (const argument of found) expect(argument.description?.length).toBeGreaterThan(20);
		// What a model leaves out is what a person leaving the field empty gives.
		for (const argument of found.filter(({ defaultValue }) => defaultValue !== undefined)) {
			expect(['', 50, false]).toContainEqual(argument.defaultValue);
		}
	});

	test("writes each argument as n8n's editor button does, marker included, so the editor shows the field as the model's", () => {
		// The marker is n8n-workflow's FROM_AI_AUTO_GENERATED_MARKER, on both lines; a default written without it would
		// still give the model its argument, but the editor would show a bare expression where its button shows the field
		// as defined by the model.
		const asked = stringsIn(fresh).filter((value) => value.includes('$fromAI('));
		expect(asked).toHaveLength(Object.keys(MODEL_ARGUMENTS[key]).length);
		for (const value of asked) expect(value.startsWith(`={{ ${FROM_AI_AUTO_GENERATED_MARKER} $fromAI('`)).toBe(true);
	});

	test('a fresh tool has no issue: the model fills what the operation needs', () => {
		expect(parameterIssues(toolDescription, { parameters: { resource, operation } })).toEqual([]);
		expect(unsupportedValues(toolDescription.properties, fresh, toolDescription)).toEqual([]);
	});

	test('the plain node of version 1 stores exactly what a fresh node of 0.4 stored, and shows none of the tool fields', () => {
		const stored = editorParameters(description, { resource, operation }, 1);
		expect(stored).toEqual(STORED_BY_04[key]);
		const shown = shownProperties(description, stored, 1).map((property) => property.name);
		expect(shown).not.toContain('toolDescription');
		expect(shown).not.toContain('toolAnswer');
	});
});

const examplesDirectory = join(__dirname, '..', '..', 'examples');
const examples = readdirSync(examplesDirectory)
	.filter((file) => file.endsWith('.json') && !file.startsWith('sample-'))
	.map((file) => ({
		file,
		workflow: JSON.parse(readFileSync(join(examplesDirectory, file), 'utf8')) as { nodes: INode[] },
	}));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OWN_TYPES: Record<string, () => INodeTypeDescription> = {
	'n8n-nodes-product-registration.productRegistration': () => description,
	'n8n-nodes-product-registration.productRegistrationTool': () => toolDescription,
	'n8n-nodes-product-registration.productRegistrationTrigger': () => built.trigger().description,
	'n8n-nodes-product-registration.productRegistrationPollTrigger': () => built.pollTrigger().description,
};
const WEBHOOK_TYPES = [
	'n8n-nodes-product-registration.productRegistrationTrigger',
	'n8n-nodes-base.formTrigger',
	'n8n-nodes-base.webhook',
	'@n8n/n8n-nodes-langchain.mcpTrigger',
];

describe.each(examples)('examples/$file, opened in the editor', ({ workflow }) => {
	test('its nodes of this package have no parameter issue, no unsupported value, and name each credential the editor asks for', () => {
		const own = workflow.nodes.filter((candidate) => OWN_TYPES[candidate.type]);
		expect(own.length).toBeGreaterThan(0);
		for (const candidate of own) {
			const nodeDescription = OWN_TYPES[candidate.type]();
			expect({ node: candidate.name, issues: parameterIssues(nodeDescription, candidate) }).toEqual({
				node: candidate.name,
				issues: [],
			});
			expect({
				node: candidate.name,
				credentials: Object.keys(candidate.credentials ?? {}).sort(),
			}).toEqual({
				node: candidate.name,
				credentials: askedCredentials(
					nodeDescription,
					editorParameters(nodeDescription, candidate.parameters, candidate.typeVersion),
					candidate.typeVersion,
				).sort(),
			});
			expect({
				node: candidate.name,
				unsupported: unsupportedValues(
					nodeDescription.properties,
					candidate.parameters,
					nodeDescription,
					candidate.typeVersion,
				),
			}).toEqual({
				node: candidate.name,
				unsupported: [],
			});
		}
	});

	test('node ids are UUIDs, and each webhook node has its own webhookId', () => {
		for (const candidate of workflow.nodes) expect(candidate.id).toMatch(UUID);
		for (const candidate of workflow.nodes.filter((entry) => WEBHOOK_TYPES.includes(entry.type))) {
			expect(candidate.webhookId).toMatch(UUID);
		}
	});
});

test('no two examples share a webhookId, so importing them never gives two workflows the same webhook path', () => {
	const webhookIds = examples.flatMap(({ workflow }) => workflow.nodes.map((entry) => entry.webhookId).filter(Boolean));
	expect(webhookIds.length).toBeGreaterThan(0);
	expect(new Set(webhookIds).size).toBe(webhookIds.length);
});

describe("the credential's Test button", () => {
	let server: Server;
	let origin: string;
	const received: string[] = [];

	beforeAll(async () => {
		server = createServer((request, response) => {
			received.push(`${request.method} ${request.url}`);
			response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => await new Promise((resolve) => server.close(resolve)));

	test.each(['', '/', '/api', '/api/', '//', '/shop', '/shop/api//'])(
		'with Base URL <origin>%s calls the URL the node calls',
		async (suffix) => {
			const credentials = { baseUrl: `${origin}${suffix}`, accessToken: 'token-1' };
			received.length = 0;
			const nodeRun = await runNode({
				parameters: { resource: 'registration', operation: 'getAll', returnAll: false, limit: 1 },
				credentials,
			});
			const testResult = await testCredential(built.credential(), credentials);

			expect(nodeRun.error).toBeUndefined();
			expect(testResult).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(received).toHaveLength(2);
			expect(received[1]).toBe(received[0]);
			expect(received[0]).toBe(`GET ${suffix.startsWith('/shop') ? '/shop' : ''}/api/registrations?page=1&limit=1`);
		},
	);
});
