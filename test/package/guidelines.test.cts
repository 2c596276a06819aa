import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	built,
	defaultTypeProblems,
	editorParameters,
	everyProperty,
	longTooltips,
	offeredCollectionOptions,
	offeredOperations,
	shownProperties,
	unsortedCollections,
} from '../../harness/editorView.cts';

/**
 * docs/development.md's "n8n's UX guidelines, rule by rule", held against what a user sees: the built descriptions,
 * resolved as n8n's editor resolves them (harness/editorView.cts). RULES holds, for each row of its three tables, the
 * check of what the row claims — or the test elsewhere that holds it, or, for the few rules no test of this package can
 * hold (who publishes, what the app offers), why not. A row without an entry here, or an entry without a row, fails:
 * the table cannot claim what nothing checks.
 */

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The first cell of every row of the section's tables: the rules, as the table words them. */
function tableRules(): string[] {
	const section = /^## n8n's UX guidelines, rule by rule$([\s\S]*?)^## /m.exec(read('docs/development.md'))?.[1] ?? '';
	return section
		.split('\n')
		.filter((line) => line.startsWith('| ') && !line.startsWith('| rule |'))
		.map((line) => line.slice(2, line.indexOf(' | ')));
}

const node = built.node().description;
const trigger = built.trigger().description;
const pollTrigger = built.pollTrigger().description;
const credentials = [built.credential(), built.webhookCredential()];
const nodeTypes = [node, trigger, pollTrigger];

/**
 * What a user meets, with where: every parameter of the nodes (their tool fields included) and of the credentials; not
 * n8n's own Poll Times, which its loader adds to the poll trigger.
 */
const everywhere = [
	...nodeTypes.flatMap((description) =>
		everyProperty(description.properties)
			.filter(({ at }) => !at.startsWith('pollTimes'))
			.map((entry) => ({ ...entry, at: `${description.name} ${entry.at}` })),
	),
	...credentials.flatMap((credential) =>
		everyProperty(credential.properties).map((entry) => ({ ...entry, at: `${credential.name} ${entry.at}` })),
	),
];
const properties = everywhere.map(({ property }) => property);

/** A dropdown's values (a collection's options are parameters, not values). */
const optionsOf = (property: INodeProperties) =>
	(property.type === 'options' || property.type === 'multiOptions'
		? (property.options ?? [])
		: []) as INodePropertyOptions[];
const dropdowns = everywhere.filter(({ property }) => property.type === 'options' || property.type === 'multiOptions');
const notices = properties.filter((property) => property.type === 'notice');
const booleans = properties.filter((property) => property.type === 'boolean');
const locators = everywhere.filter(({ property }) => property.type === 'resourceLocator');
const unique = (values: string[]) => [...new Set(values)].sort();

/** Each operation a user can pick, with its dropdown entry (name, action, description) and its resource's name. */
const operationEntries = node.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) =>
		optionsOf(property).map((option) => ({
			resource: property.displayOptions!.show!.resource![0] as string,
			option,
		})),
	);
const RESOURCE_WORDS: Record<string, string> = {
	registration: 'registration',
	serialNumber: 'serial number',
	file: 'file',
};

/** The tooltips a user reads: descriptions of parameters and of dropdown values (a tool's description is for a model). */
const tooltips = everywhere.flatMap(({ property, at }) => [
	...(property.description && property.name !== 'toolDescription' ? [{ at, text: property.description }] : []),
	...optionsOf(property)
		.filter((option) => option.description)
		.map((option) => ({ at: `${at} = ${String(option.value)}`, text: option.description! })),
]);

/** Every text a user reads in the editor. */
const texts = [
	...tooltips,
	...everywhere.flatMap(({ property, at }) => [
		{ at, text: property.displayName },
		...(property.hint ? [{ at, text: property.hint }] : []),
		...(property.placeholder ? [{ at, text: property.placeholder }] : []),
		...optionsOf(property).map((option) => ({ at, text: option.name })),
	]),
	...operationEntries.map(({ option }) => ({ at: `operation ${String(option.value)}`, text: option.action ?? '' })),
];

/** The words Title Case leaves lowercase inside a name, as the title-case package n8n's lint uses lists them. */
const MINOR_WORDS = new Set(
	'a an and as at because but by en for if in neither nor of on only or over per so some than that the to up upon v versus via vs when with without yet'.split(
		' ',
	),
);
const wordsOf = (text: string) =>
	text
		.split(/\s+/)
		.filter(Boolean)
		.map((word) => word.replace(/^[^A-Za-z0-9]+/, ''));

/** Title Case as n8n's lint reads it: every word capitalised, but the minor ones inside ("Visible to Customer"). */
function isTitleCase(text: string): boolean {
	const words = wordsOf(text);
	return words.every((word, index) => {
		if (word === '' || /^[0-9]/.test(word)) return true;
		const inside = index > 0 && index < words.length - 1;
		if (inside && MINOR_WORDS.has(word.toLowerCase())) return word === word.toLowerCase();
		return /^[A-Z]/.test(word);
	});
}

/** Sentence case: a capital first, and not Title Case in disguise (a text of four words or more has a lowercase one). */
function isSentenceCase(text: string): boolean {
	const words = wordsOf(text);
	return /^[A-Z0-9]/.test(words[0] ?? '') && (words.length < 4 || words.slice(1).some((word) => /^[a-z]/.test(word)));
}

/** n8n's rule for tooltips and info boxes: no period after one sentence, a period after the last of several. */
function periodAsGuided(text: string): boolean {
	const plain = text.trim().replace(/\b(e\.g|i\.e)\. /g, '$1 ');
	const several = /[.!?]["')]? +[A-Z]/.test(plain);
	return several ? plain.endsWith('.') : !plain.endsWith('.');
}

/** How the editor shows a default that the node uses when the field is not set; undefined when there is none. */
function shownDefault(property: INodeProperties): string | undefined {
	const value = property.default;
	if (value === '' || value === null || value === undefined || typeof value === 'object') return undefined;
	if (typeof value === 'string' && value.startsWith('=')) return undefined;
	if (property.type === 'options') return optionsOf(property).find((option) => option.value === value)?.name;
	return String(value);
}

/** Every optional field (inside Additional Fields, Options, ... or a group of them) with a default the node uses. */
const optionalDefaults = everywhere
	.filter(({ at }) => at.includes('.'))
	.map(({ property, at }) => ({ at, shown: shownDefault(property), description: property.description ?? '' }))
	.filter(({ shown }) => shown !== undefined);

/** What n8n's UX guidelines name a Simplify toggle's description. */
const SIMPLIFY_DESCRIPTION = 'Whether to return a simplified version of the response instead of the raw data';
/** The operations that answer with registrations: where Simplify shows. */
const ANSWER_REGISTRATIONS = ['create', 'getAll', 'update', 'updateStatus', 'upsert'];

/** A test elsewhere that holds the rule: its file and a text of it (its title, or the check itself). */
type Elsewhere = [file: string, text: string];
type Rule =
	| { check: () => void; alsoIn?: Elsewhere[] }
	| { in: Elsewhere[] }
	/** A rule no test of this package can hold, and why (the table says how the package meets it). */
	| { outside: string };

const noun = (resource: string) => RESOURCE_WORDS[resource];
const titleCaseProblems = (entries: Array<{ at: string; text: string }>) =>
	entries.filter(({ text }) => !isTitleCase(text)).map(({ at, text }) => `${at}: ${text}`);
const sentenceCaseProblems = (entries: Array<{ at: string; text: string }>) =>
	entries.filter(({ text }) => !isSentenceCase(text)).map(({ at, text }) => `${at}: ${text}`);

const checkPasswords = () => {
	const secrets = everywhere.filter(({ property }) => /token|secret|password|api ?key/i.test(property.name));
	expect(secrets.map(({ at }) => at).sort()).toEqual([
		'productRegistrationApi accessToken',
		'productRegistrationTrigger secret',
		'productRegistrationWebhookApi secret',
	]);
	for (const { property } of secrets) expect(property.typeOptions?.password).toBe(true);
};

const checkLocators = () => {
	const byName = (name: string) => locators.filter(({ property }) => property.name === name);
	expect(byName('registrationId').length).toBeGreaterThanOrEqual(3);
	expect(byName('formSlug').length).toBeGreaterThanOrEqual(3);
	for (const { property, at } of locators) {
		expect(property.modes?.map((mode) => mode.name)).toEqual(['list', 'id']);
		// The tool's copy (shown only to a tool) is filled by a model, which can only give an ID.
		const forTheTool = property.displayOptions?.show?.['@tool'] !== undefined;
		expect({ at, mode: (property.default as { mode?: string }).mode }).toEqual({
			at,
			mode: forTheTool ? 'id' : 'list',
		});
	}
	const serialNumberGet = shownProperties(node, editorParameters(node, { resource: 'serialNumber', operation: 'get' }));
	const serialNumber = serialNumberGet.find(({ name }) => name === 'serialNumber')!;
	expect(serialNumber.type).toBe('string');
	expect(serialNumber.description).toContain('the service lists no serial numbers to pick from');
};

const checkTerminology = () => {
	// The app's words.
	const status = node.properties.find(({ name, type }) => name === 'status' && type === 'options')!;
	expect(optionsOf(status).map(({ name }) => name)).toEqual(['Confirmed', 'Processing', 'Requested', 'Unqualified']);
	expect(operationEntries.find(({ option }) => option.value === 'updateStatus')?.option.name).toBe('Change Status');
	expect(unique(properties.filter(({ name }) => name === 'isPublic').map(({ displayName }) => displayName))).toEqual([
		'Visible to Customer',
	]);
	// Jargon: "key" only where the form design names its fields so, "payload" only in Split Into Items.
	const jargon = texts.filter(({ text }) => /\b(key|keys|keyed|payload)\b/i.test(text)).map(({ at }) => at);
	expect(unique(jargon)).toEqual([
		'productRegistration additionalFields.customer.details.state',
		'productRegistration additionalFields.extraFields',
		'productRegistration additionalFields.extraFields.field.name',
		'productRegistration additionalFields.files.file.fieldName',
		'productRegistration options.files.file.fieldName',
		'productRegistration options.unmatchedFields = sendAsExtraFields',
		'productRegistration updateFields.extraFields',
		'productRegistration updateFields.extraFields.field.name',
		'productRegistration updateFields.files.file.fieldName',
		'productRegistrationTrigger splitIntoItems',
	]);
	// One term for one thing: "email", never "e-mail".
	expect(texts.filter(({ text }) => /e-mail/i.test(text))).toEqual([]);
	expect(texts.filter(({ text }) => /\bemail\b/i.test(text)).length).toBeGreaterThan(3);
};

const checkBooleans = (start: string) => () => {
	expect(unique(booleans.map(({ displayName }) => displayName))).toEqual([
		'Return All',
		'Simplify',
		'Split Into Items',
		'Upload Every File',
		'Visible to Customer',
	]);
	for (const { displayName, description } of booleans)
		expect({ displayName, description }).toMatchObject({
			description: expect.stringMatching(new RegExp(`^${start} `)),
		});
};

const checkHints = () => {
	const hints = everywhere.filter(({ property }) => property.hint);
	expect(unique(hints.map(({ property }) => property.displayName))).toEqual(['Input Data Field Name']);
	expect(sentenceCaseProblems(hints.map(({ at, property }) => ({ at, text: property.hint! })))).toEqual([]);
};

const checkSimplify = () => {
	const simplify = properties.filter(({ name }) => name === 'simplify');
	expect(simplify.length).toBeGreaterThan(0);
	for (const property of simplify)
		expect(property).toMatchObject({ displayName: 'Simplify', description: SIMPLIFY_DESCRIPTION, default: true });
	for (const [resource, operations] of Object.entries(offeredOperations(node))) {
		for (const operation of operations) {
			const answers = resource === 'registration' && ANSWER_REGISTRATIONS.includes(operation);
			expect([operation, editorParameters(node, { resource, operation }).simplify]).toEqual([
				operation,
				answers ? true : undefined,
			]);
			expect(editorParameters(node, { resource, operation }, 1)).not.toHaveProperty('simplify');
		}
	}
};

const checkUpsert = () =>
	expect(operationEntries.find(({ option }) => option.value === 'upsert')?.option).toMatchObject({
		name: 'Create or Update',
		description: 'Create a new registration, or update the current one if it already exists (upsert)',
	});

const checkTooltips = () => {
	expect(tooltips.length).toBeGreaterThan(80);
	expect(sentenceCaseProblems(tooltips)).toEqual([]);
	expect(tooltips.filter(({ text }) => !periodAsGuided(text)).map(({ at }) => at)).toEqual([]);
	expect(tooltips.filter(({ text }) => /<a |href=/i.test(text)).map(({ at }) => at)).toEqual([]);
	for (const description of nodeTypes) expect(longTooltips(description.properties, 40)).toEqual([]);
	for (const credential of credentials) expect(longTooltips(credential.properties, 40)).toEqual([]);
};

const checkInfoBoxes = () => {
	expect(unique(notices.map(({ name }) => name))).toEqual([
		'autoMapNotice',
		'getUnregisteredNotice',
		'pollNotice',
		'setupNotice',
	]);
	for (const { displayName } of notices) {
		expect(isSentenceCase(displayName)).toBe(true);
		expect(periodAsGuided(displayName)).toBe(true);
	}
};

const checkDropdownTitles = () => {
	const names = dropdowns.flatMap(({ at, property }) =>
		optionsOf(property).map((option) => ({ at, text: option.name })),
	);
	expect(names.length).toBeGreaterThan(30);
	expect(titleCaseProblems(names)).toEqual([]);
};

const checkNames = () => {
	expect(titleCaseProblems(nodeTypes.map(({ name, displayName }) => ({ at: name, text: displayName })))).toEqual([]);
	expect(
		titleCaseProblems([
			...everywhere
				.filter(({ property }) => property.type !== 'notice')
				.map(({ at, property }) => ({ at, text: property.displayName })),
			...credentials.map(({ name, displayName }) => ({ at: name, text: displayName })),
		]),
	).toEqual([]);
	// The node's subtitle is the guidelines' own expression; the triggers' are fixed, in Title Case.
	expect(node.subtitle).toBe('={{$parameter["operation"] + ": " + $parameter["resource"]}}');
	for (const { subtitle } of [trigger, pollTrigger]) expect(isTitleCase(subtitle!)).toBe(true);
};

const checkOperationNames = () => {
	for (const { resource, option } of operationEntries) {
		expect(isTitleCase(option.name)).toBe(true);
		expect(option.name.toLowerCase()).not.toContain(noun(resource));
	}
};

const checkActions = () => {
	for (const { resource, option } of operationEntries) {
		expect(isSentenceCase(option.action!)).toBe(true);
		expect(option.action!.toLowerCase()).toContain(noun(resource));
	}
	// Falls short on articles, as the table says: all but Get Many's say "a" or "an".
	const withoutArticle = operationEntries
		.map(({ option }) => option.action!)
		.filter((action) => !/\b(a|an|the)\b/.test(action));
	expect(withoutArticle).toEqual(['Get many registrations']);
};

const checkOperationDescriptions = () => {
	for (const { resource, option } of operationEntries) {
		expect(isSentenceCase(option.description!)).toBe(true);
		expect([option.value, option.description!.toLowerCase()]).toEqual([
			option.value,
			expect.stringContaining(noun(resource)),
		]);
		expect(option.description).not.toBe(option.action);
	}
};

const checkTopLevel = () => {
	/** The optional fields each operation shows at the top, beside the required ones and what structures the node. */
	const structural = new Set(['resource', 'operation', 'dataMode', 'simplify', 'additionalFields', 'updateFields']);
	const topLevel: Record<string, string[]> = {};
	for (const [resource, operations] of Object.entries(offeredOperations(node))) {
		for (const operation of operations) {
			const shown = shownProperties(node, editorParameters(node, { resource, operation }));
			topLevel[`${resource}.${operation}`] = shown
				.filter(({ required, type }) => !required && type !== 'notice' && type !== 'collection')
				.map(({ name }) => name)
				.filter((name) => !structural.has(name));
		}
	}
	expect(topLevel).toEqual({
		'file.upload': [],
		'registration.create': ['customerName', 'serialNumbers', 'purchaseDate'],
		'registration.delete': [],
		'registration.getAll': ['returnAll', 'limit'],
		'registration.update': [],
		'registration.updateStatus': ['isPublic'],
		'registration.upsert': ['customerName', 'serialNumbers', 'purchaseDate'],
		'serialNumber.create': ['sku', 'customerTags'],
		'serialNumber.get': [],
		'serialNumber.getUnregistered': [],
	});
};

const checkProgressiveDisclosure = () => {
	const getAll = { resource: 'registration', operation: 'getAll' };
	const shownNames = (parameters: INodeParameters) =>
		shownProperties(node, editorParameters(node, parameters)).map(({ name }) => name);
	expect(shownNames({ ...getAll, returnAll: false })).toContain('limit');
	expect(shownNames({ ...getAll, returnAll: true })).not.toContain('limit');
	const create = { resource: 'registration', operation: 'create' };
	const mapped = { ...create, dataMode: 'autoMapInputData' };
	expect(shownNames(create)).toEqual(expect.arrayContaining(['productName', 'customerEmail', 'additionalFields']));
	expect(shownNames(mapped)).not.toEqual(expect.arrayContaining(['productName']));
	expect(shownNames(mapped)).toContain('autoMapNotice');
	const options = (parameters: INodeParameters) =>
		offeredCollectionOptions(node, editorParameters(node, parameters), 'options');
	expect(options(mapped)).toEqual(expect.arrayContaining(['Unmatched Fields', 'Upload Every File']));
	expect(options(create)).not.toContain('Unmatched Fields');
	expect(options(create)).not.toContain('Upload Every File');
};

const checkOptionalDefaults = () => {
	expect(optionalDefaults.length).toBeGreaterThan(40);
	const unsaid = optionalDefaults
		.filter(
			({ shown, description }) =>
				!new RegExp(`Defaults to ${shown!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\b|\\.| |$)`).test(description),
		)
		.map(({ at, shown }) => `${at}: ${shown}`);
	expect(unsaid).toEqual([]);
};

const checkLists = () => {
	expect(node.properties.find(({ name }) => name === 'resource')?.default).toBe('registration');
	const registrationOperation = node.properties.find(
		({ name, displayOptions }) => name === 'operation' && displayOptions?.show?.resource?.includes('registration'),
	);
	expect(registrationOperation?.default).toBe('create');
	expect(
		unique(properties.filter(({ name }) => name === 'ifExists').map((property) => String(property.default))),
	).toEqual(['create']);
	for (const description of nodeTypes) expect(defaultTypeProblems(description)).toEqual([]);
};

const checkSortedLists = () => {
	const unsorted = dropdowns
		.filter(({ property }) => {
			const names = optionsOf(property).map(({ name }) => name);
			return names.join('\n') !== [...names].sort((a, b) => a.localeCompare(b)).join('\n');
		})
		.map(
			({ property }) =>
				`${property.name}: ${optionsOf(property)
					.map(({ name }) => name)
					.join(', ')}`,
		);
	// The tool's Output lists its values in the order n8n's guideline for AI tool nodes names them.
	expect(unique(unsorted)).toEqual(['toolAnswer: Simplified, Raw']);
};

const checkOptionDescriptions = () => {
	const described = dropdowns.filter(({ property }) => optionsOf(property).some(({ description }) => description));
	expect(unique(described.map(({ property }) => property.name))).toEqual(
		expect.arrayContaining([
			'authentication',
			'dataMode',
			'ifExists',
			'operation',
			'status',
			'toolAnswer',
			'unmatchedFields',
		]),
	);
	const allowed = [
		'authentication',
		'dataMode',
		'event',
		'ifExists',
		'listOrder',
		'operation',
		'status',
		'toolAnswer',
		'unmatchedFields',
	];
	for (const { property } of described) expect(allowed).toContain(property.name);
};

const checkBinaryFields = () => {
	const binary = properties.filter(({ name }) => name === 'binaryPropertyName');
	expect(binary.length).toBeGreaterThan(2);
	for (const { displayName } of binary) expect(displayName).toBe('Input Data Field Name');
	expect(texts.filter(({ text }) => /binary (property|properties|data)\b/i.test(text))).toEqual([]);
};

const checkIcons = () => {
	const icons = [...nodeTypes, ...credentials].map(({ name, icon }) => ({ name, icon }));
	for (const { icon } of icons) {
		expect(icon).toEqual({
			light: expect.stringMatching(/^file:.*\.svg$/),
			dark: expect.stringMatching(/^file:.*\.svg$/),
		});
	}
};

const RULES: Record<string, Rule> = {
	// Verification guidelines.
	'Use the n8n-node tool to create and check the package': {
		check: () => {
			const packageJson = JSON.parse(read('package.json')) as {
				n8n: { strict: boolean };
				scripts: Record<string, string>;
			};
			expect(packageJson.n8n.strict).toBe(true);
			expect(packageJson.scripts['lint:n8n-node']).toBe('n8n-node lint');
			expect(packageJson.scripts.prepublishOnly).toBe('n8n-node prerelease');
		},
	},
	'Not an existing node; no logic or flow-control node': { outside: 'what n8n offers, not what the package does' },
	'One third-party service per package (its trigger may come along)': {
		check: () => {
			const { n8n } = JSON.parse(read('package.json')) as { n8n: { nodes: string[]; credentials: string[] } };
			for (const entry of [...n8n.nodes, ...n8n.credentials])
				expect(entry).toMatch(/\/ProductRegistration[A-Za-z]*\.(node|credentials)\.js$/);
		},
	},
	"npm's repository URL is the GitHub repository; npm's author and maintainer match the repository's; the git link works and the repository is public":
		{ in: [['scripts/checkReleaseIdentity.mjs', 'OWNER']] },
	'Proper documentation (README, usage examples, authentication)': {
		check: () => {
			const readme = read('README.md');
			for (const heading of ['Installation', 'Operations', 'Credentials', 'Usage', 'Troubleshooting', 'Resources'])
				expect(readme).toMatch(new RegExp(`^## ${heading}$`, 'm'));
			const examples = readdirSync(join(root, 'examples')).filter(
				(file) => file.endsWith('.json') && !file.startsWith('sample-'),
			);
			for (const file of examples) expect(readme).toContain(`(examples/${file})`);
		},
	},
	'MIT licence': { in: [['test/package/package.test.cts', 'holds only dist/, package.json, README.md and LICENSE']] },
	'Published from a GitHub Action, with provenance': { in: [['.github/workflows/release.yml', 'npm run release']] },
	'No external dependencies': {
		in: [['test/package/package.test.cts', 'shipped JavaScript requires nothing but n8n-workflow and its own files']],
	},
	'No access to environment variables or the file system; data through parameters': {
		in: [['test/package/scanner.test.cts', "the scanner's tarball leg fails on a banned global in compiled code"]],
	},
	"TypeScript, n8n's node development guidelines": {
		outside: 'how the code is written; n8n-node lint holds its rules',
	},
	'Proper error handling and validation': {
		in: [
			['test/registration/create.test.cts', "The 'Purchase Date' is not a date"],
			['test/behaviour/fuzz.test.cts', 'never a TypeError, a hang or a crash'],
		],
	},
	'The linter passes: `npx @n8n/scan-community-package n8n-nodes-PACKAGE`': {
		in: [['test/package/scanner.test.cts', 'the copy passes both as it is']],
	},
	'English only, UI and documentation': { outside: 'a language, which no test here reads' },

	// UX guidelines.
	'API keys and sensitive credentials are password fields': { check: checkPasswords },
	'Include the OAuth credential if available': { outside: 'the app offers only an access token' },
	'CRUD operations for each resource: Create, Create or Update, Delete, Get, Get Many, Update': {
		check: () => {
			const names = Object.fromEntries(
				Object.keys(RESOURCE_WORDS).map((resource) => [
					resource,
					operationEntries
						.filter((entry) => entry.resource === resource)
						.map(({ option }) => option.name)
						.sort(),
				]),
			);
			expect(names).toEqual({
				registration: ['Change Status', 'Create', 'Create or Update', 'Delete', 'Get Many', 'Update'],
				serialNumber: ['Create', 'Get', 'Get Unregistered'],
				file: ['Upload'],
			});
		},
	},
	'An operation on an entity inside the resource names it': {
		check: () => {
			for (const { resource, option } of operationEntries)
				expect(option.action!.toLowerCase()).toContain(noun(resource));
		},
	},
	'A Resource Locator wherever possible, From List by default': {
		check: checkLocators,
		alsoIn: [['test/package/editor.test.cts', 'every resource locator searches with a method the node has']],
	},
	'Consistency with other nodes': {
		check: () => {
			const collections = properties.filter(({ type }) => type === 'collection');
			expect(unique(collections.map(({ name, displayName }) => `${name}: ${displayName}`))).toEqual([
				'additionalFields: Additional Fields',
				'filters: Filters',
				'options: Options',
				'updateFields: Update Fields',
			]);
			const getAll = editorParameters(node, { resource: 'registration', operation: 'getAll' });
			expect(getAll).toMatchObject({ returnAll: false, limit: 50 });
			const dataMode = properties.find(({ name }) => name === 'dataMode')!;
			expect(optionsOf(dataMode).map(({ name, value }) => `${name}: ${String(value)}`)).toEqual([
				'Define Below: defineBelow',
				'Map Automatically: autoMapInputData',
			]);
		},
		alsoIn: [['test/registration/create.test.cts', 'under Continue On Fail a bad item becomes an error item']],
	},
	'Sorting options for Get Many, in their own collection': {
		check: () => {
			const getAll = editorParameters(node, { resource: 'registration', operation: 'getAll' });
			const offered = [
				...shownProperties(node, getAll).map(({ displayName }) => displayName),
				...offeredCollectionOptions(node, getAll, 'filters'),
				...offeredCollectionOptions(node, getAll, 'options'),
			];
			expect(offered.filter((name) => /sort|order/i.test(name))).toEqual([]);
		},
	},
	'Delete returns `{ "deleted": true }`': {
		in: [['test/registration/delete.test.cts', 'DELETEs the registration and says so']],
	},
	'Simplify (at most 10 fields) where an endpoint returns more than 10, named and described as given': {
		check: () => {
			checkSimplify();
			const { compactRegistration } = require(join(root, 'dist', 'nodes', 'shared', 'registrations.js')) as {
				compactRegistration: (record: IDataObject) => IDataObject;
			};
			const everyKey = Object.fromEntries(
				[
					'id',
					'productName',
					'productSku',
					'customerEmail',
					'customerName',
					'serialNumbers',
					'purchaseDate',
					'createdAt',
					'status',
					'type',
					'warranty',
					'warrantyEndDate',
					'shopifyOrderId',
					'outcome',
				].map((key) => [key, key === 'serialNumbers' ? ['KT-1'] : `${key} value`]),
			);
			expect(Object.keys(compactRegistration({ ...everyKey, repeatsItem: 0 })).length).toBeLessThanOrEqual(10);
		},
	},
	'AI tool nodes: Output with Simplified, Raw and Selected Fields': {
		check: () => {
			const outputs = properties.filter(({ name }) => name === 'toolAnswer');
			expect(outputs.length).toBeGreaterThan(0);
			for (const output of outputs) {
				expect(output.displayName).toBe('Output');
				expect(optionsOf(output).map(({ name }) => name)).toEqual(['Simplified', 'Raw']);
			}
		},
	},
	'Title Case for node names, parameter names, dropdown titles; sentence case for actions, descriptions, hints, dropdown descriptions':
		{
			check: () => {
				checkNames();
				checkDropdownTitles();
				checkActions();
				checkHints();
				expect(sentenceCaseProblems(tooltips)).toEqual([]);
			},
		},
	"The service's terminology, as its UI words it": { check: checkTerminology },
	'No tech jargon ("field", not "key")': { check: checkTerminology },
	'Consistent naming: one term for one thing': { check: checkTerminology },
	'Placeholders start "e.g.", with the examples given': {
		in: [['test/package/editor.test.cts', 'every placeholder that shows an example value starts with "e.g."']],
	},
	'Operation name: Title Case, without the resource': { check: checkOperationNames },
	'Operation action: sentence case, with the resource, without articles ("Update row in sheet")': {
		check: checkActions,
	},
	'Operation description: sentence case, with the resource, adding to the name': {
		check: checkOperationDescriptions,
	},
	"The vocabulary's descriptions (Create a new …, Delete … permanently, Retrieve a list of …, … (upsert))": {
		check: () => {
			checkUpsert();
			expect(operationEntries.find(({ option }) => option.value === 'getAll')?.option.action).toBe(
				'Get many registrations',
			);
		},
	},
	'Parameter and field names in copy in single quotation marks': {
		in: [['test/registration/create.test.cts', "The 'Purchase Date' is not a date"]],
	},
	'Boolean descriptions start "Whether…"': { check: checkBooleans('Whether') },
	'Errors say what happened and how to get unstuck': {
		in: [
			[
				'test/behaviour/reliability.test.cts',
				'a create that met a 503 is not repeated: the outcome is unknown, and the error says what to check',
			],
		],
	},
	'An error names the parameter (its display name)': {
		in: [['test/registration/create.test.cts', "The 'Customer Email' is not an email address"]],
	},
	'The item index appended as `[item X]`': {
		in: [['test/registration/create.test.cts', "The 'Customer Email' is empty [item 2]"]],
	},
	'No "error", "problem", "failure", "mistake" in errors': {
		in: [['test/behaviour/fuzz.test.cts', 'WORDS_ERRORS_AVOID']],
	},

	// Node UI design.
	'Review the API: leave out, simplify, explain': { outside: 'a way of working; the rows below hold its outcome' },
	'Drop-down values in Title case': { check: checkDropdownTitles },
	'Hints in sentence case': { check: checkHints },
	'Info boxes: sentence case; no period for one sentence, periods for several': { check: checkInfoBoxes },
	'Node names, parameter names, subtitles in Title case': { check: checkNames },
	'Tooltips: sentence case; no period for one sentence, periods for several; links open in a new tab': {
		check: checkTooltips,
	},
	"Terminology: the service's, its GUI's, no jargon, one term": { check: checkTerminology },
	'A trigger\'s name ends in " Trigger"': {
		check: () => {
			for (const { displayName } of [trigger, pollTrigger]) expect(displayName).toMatch(/ Trigger$/);
			expect(node.displayName).not.toMatch(/Trigger/);
		},
	},
	'No "node" in a node\'s name': {
		check: () => {
			for (const { displayName } of [...nodeTypes, ...credentials]) expect(displayName).not.toMatch(/\bnode\b/i);
		},
	},
	'Resources, operations and required fields shown; optional fields in their section': { check: checkTopLevel },
	'Progressive disclosure': { check: checkProgressiveDisclosure },
	'Credentials first': { outside: 'n8n places them above the parameters' },
	'Resource first, Operation second': {
		check: () => {
			for (const [resource, operations] of Object.entries(offeredOperations(node))) {
				for (const operation of operations) {
					const shown = shownProperties(node, editorParameters(node, { resource, operation }));
					expect(shown.slice(0, 2).map(({ name }) => name)).toEqual(['resource', 'operation']);
				}
			}
		},
	},
	'Required fields by importance, broad to narrow': {
		check: () => {
			const shown = shownProperties(node, editorParameters(node, { resource: 'registration', operation: 'create' }))
				.map(({ name }) => name)
				.filter((name) =>
					['productName', 'customerEmail', 'customerName', 'serialNumbers', 'purchaseDate'].includes(name),
				);
			expect(shown).toEqual(['productName', 'customerEmail', 'customerName', 'serialNumbers', 'purchaseDate']);
		},
	},
	'Optional fields in alphabetical order': {
		check: () => {
			for (const description of nodeTypes) expect(unsortedCollections(description)).toEqual([]);
		},
	},
	'An optional field loads the default the node uses, and says so': { check: checkOptionalDefaults },
	'Connected optional fields bundled': {
		check: () => {
			for (const name of ['customer', 'files', 'assets']) {
				const found = properties.filter((property) => property.name === name);
				expect([name, found.length > 0 && found.every(({ type }) => type === 'fixedCollection')]).toEqual([name, true]);
			}
		},
	},
	'Many optional fields grouped by theme': {
		check: () =>
			expect(
				unique(properties.filter(({ type }) => type === 'collection').map(({ displayName }) => displayName)),
			).toEqual(['Additional Fields', 'Filters', 'Options', 'Update Fields']),
	},
	'Info boxes only for essential information': { check: checkInfoBoxes },
	'Parameter hints where an info box is too much': { check: checkHints },
	'Tooltips only where useful, rewritten rather than copied from the API': { check: checkTooltips },
	'Placeholder text': {
		in: [['test/package/editor.test.cts', 'every placeholder that shows an example value starts with "e.g."']],
	},
	'Required fields marked': {
		in: [
			[
				'test/package/editor.test.cts',
				'the parameters it cannot run without are marked required, and flagged until filled',
			],
		],
	},
	'Validation, e.g. an email pattern': {
		in: [
			['test/registration/create.test.cts', "The 'Customer Email' is not an email address"],
			['test/behaviour/fuzz.test.cts', 'never a TypeError, a hang or a crash'],
		],
	},
	"Only the main message in the error's title, the rest in Details": {
		in: [['test/behaviour/reliability.test.cts', 'expect(result.error?.description).toBe(']],
	},
	'Toggle tooltips start "Whether to …"': { check: checkBooleans('Whether to') },
	'A toggle where the false state is clear, else a list': {
		check: () => {
			checkBooleans('Whether')();
			const lists = unique(dropdowns.map(({ property }) => property.name));
			expect(lists).toEqual(
				expect.arrayContaining(['authentication', 'dataMode', 'ifExists', 'status', 'toolAnswer', 'unmatchedFields']),
			);
		},
	},
	'Lists have a default, the most used': { check: checkLists },
	'List options in alphabetical order': { check: checkSortedLists },
	'Option descriptions only where useful': { check: checkOptionDescriptions },
	'"All", not "*"': {
		check: () => {
			const names = dropdowns.flatMap(({ property }) => optionsOf(property).map(({ name }) => name));
			expect(names.filter((name) => name.includes('*'))).toEqual([]);
		},
	},
	'A trigger\'s event parameter is named "Trigger On", without tooltip': {
		check: () => {
			const event = pollTrigger.properties.find(({ name }) => name === 'event')!;
			expect(event.displayName).toBe('Trigger On');
			expect(event.description).toBeUndefined();
			expect(trigger.properties.some(({ name }) => name === 'event')).toBe(false);
		},
	},
	'Subtitles from the main parameters': { check: checkNames },
	'IDs: from a list and by ID': { check: checkLocators },
	'Name an ID field "<Record> Name or ID", with its tooltip': {
		check: () => {
			expect(unique(locators.map(({ property }) => property.displayName))).toEqual(['Form', 'Registration']);
			expect(properties.filter(({ typeOptions }) => typeOptions?.loadOptionsMethod)).toEqual([]);
		},
	},
	'Accept more than needed (an absolute path, a URL holding the ID)': {
		in: [
			['test/package/editor.test.cts', 'with Base URL <origin>%s calls the URL the node calls'],
			[
				'test/serialNumber/get.test.cts',
				'a known serial with "/", "#" and spaces is found, URL-encoded as one path segment',
			],
		],
	},
	'Dates: every ISO 8601 format': {
		in: [
			[
				'test/registration/create.test.cts',
				'accepts what sheets and CRMs hold: serial arrays, timestamps, Luxon and JS dates; blanks are left out',
			],
		],
	},
	'JSON typed in, or an expression returning it': {
		check: () => {
			const json = properties.filter(({ name }) => name === 'extraFieldsJson' || name === 'assetsJson');
			expect(unique(json.map(({ name }) => name))).toEqual(['assetsJson', 'extraFieldsJson']);
			for (const { type } of json) expect(type).toBe('json');
		},
	},
	'Node icons': { check: checkIcons, alsoIn: [['test/package/package.test.cts', 'with the icons they name']] },
	'Simplify Responses toggle': { check: checkSimplify },
	'Upsert as its own operation, **Create or Update**, with the given description': { check: checkUpsert },
	'Boolean operators: Any and All as options': {
		check: () => {
			const getAll = editorParameters(node, { resource: 'registration', operation: 'getAll' });
			expect(offeredCollectionOptions(node, getAll, 'filters')).toEqual(['Customer Email', 'Customer ID', 'Form']);
		},
	},
	'Binary data fields named Input Data Field Name / Output Data Field Name, not "binary property"': {
		check: checkBinaryFields,
	},
};

const rules = tableRules();

test("every rule of docs/development.md's table has its check here, and every check a rule of the table", () => {
	expect(rules.length).toBeGreaterThan(70);
	expect([...rules].sort()).toEqual(Object.keys(RULES).sort());
});

const checked = rules.filter((rule) => RULES[rule] !== undefined && !('outside' in RULES[rule]));

describe.each(checked)('n8n guideline: %s', (rule) => {
	const entry = RULES[rule];
	if ('check' in entry) test('holds in the built descriptions, as the table says', entry.check);
	const elsewhere = 'in' in entry ? entry.in : 'alsoIn' in entry ? (entry.alsoIn ?? []) : [];
	if (elsewhere.length > 0)
		test.each(elsewhere)('is held by %s (%s)', (file, text) => {
			expect(existsSync(join(root, file))).toBe(true);
			expect(read(file)).toContain(text);
		});
});

describe('the checks see what they are for', () => {
	test('Title Case and sentence case', () => {
		expect(isTitleCase('Visible to Customer')).toBe(true);
		expect(isTitleCase('Retry wait')).toBe(false);
		expect(isTitleCase('Files To Upload')).toBe(false);
		expect(isSentenceCase('Whether to upload every binary field')).toBe(true);
		expect(isSentenceCase('How Many Batches To Send')).toBe(false);
		expect(isSentenceCase('whether to upload')).toBe(false);
	});

	test('periods: none after one sentence, one after several; "e.g." is no sentence end', () => {
		expect(periodAsGuided('Only registrations made in this form')).toBe(true);
		expect(periodAsGuided('Only registrations made in this form.')).toBe(false);
		expect(periodAsGuided('How many to send at once. Defaults to 4.')).toBe(true);
		expect(periodAsGuided('How many to send at once. Defaults to 4')).toBe(false);
		expect(periodAsGuided('Files or images, e.g. Receipt scans')).toBe(true);
	});

	test('an option whose description does not say its default is found', () => {
		const batchSize = optionalDefaults.find(({ at }) => at.endsWith('options.batchSize'))!;
		expect(batchSize).toMatchObject({ shown: '100', description: expect.stringContaining('Defaults to 100.') });
		const without = { ...batchSize, description: batchSize.description.replace(/ Defaults to 100\./, '') };
		expect(new RegExp(`Defaults to ${without.shown}`).test(without.description)).toBe(false);
		expect(
			shownDefault({
				displayName: 'X',
				name: 'x',
				type: 'options',
				default: 'create',
				options: [{ name: 'Create Anyway', value: 'create' }],
			}),
		).toBe('Create Anyway');
		expect(shownDefault({ displayName: 'X', name: 'x', type: 'string', default: '' })).toBeUndefined();
	});
});
