import fc from 'fast-check';
import type { INodeExecutionData, INodeParameters, NodeParameterValueType } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';

/**
 * Bad input, fuzzed: random values (empty, huge, unicode, wrong types, null, nested objects where text is expected)
 * go into every parameter of every operation through the engine — as a fixed value and through an expression. The
 * node must succeed or fail with a NodeOperationError / NodeApiError that names the item: never a TypeError,
 * never a hang, never a crashed run.
 */

const { sandbox, credentials } = useSandbox();

const SEED = 4242;
const RUNS_PER_PARAMETER = 40;

const receipt: INodeExecutionData['binary'] = {
	data: { data: Buffer.from('receipt').toString('base64'), fileName: 'receipt.txt', mimeType: 'text/plain' },
};

/**
 * A valid setup of each operation, and the parameters (dotted paths) fuzzed in it. Groups (collections and the rows
 * of fixed collections) are fuzzed through expressions only: the editor saves them in one shape, and a hand-broken
 * shape is refused by n8n's own parameter handling before any node runs.
 */
const operations: Array<{ parameters: INodeParameters; fuzzed: string[] }> = [
	{
		parameters: {
			resource: 'registration',
			operation: 'create',
			productName: 'Kettle',
			customerEmail: 'ann@example.com',
			additionalFields: {
				customer: { details: { id: 1, state: 'NY' } },
				extraFields: { field: [{ name: 'a', value: 'b' }] },
			},
		},
		fuzzed: [
			'productName',
			'customerEmail',
			'customerName',
			'serialNumbers',
			'purchaseDate',
			'additionalFields',
			'additionalFields.formSlug',
			'additionalFields.customer',
			'additionalFields.customer.details',
			'additionalFields.customer.details.id',
			'additionalFields.customer.details.state',
			'additionalFields.extraFields',
			'additionalFields.extraFields.field',
			'additionalFields.extraFieldsJson',
			'additionalFields.files',
			'additionalFields.files.file',
			'options',
			'options.batchSize',
		],
	},
	{
		parameters: {
			resource: 'registration',
			operation: 'update',
			registrationId: 'R1',
			updateFields: { productName: 'X' },
		},
		fuzzed: [
			'registrationId',
			'updateFields',
			'updateFields.productName',
			'updateFields.serialNumbers',
			'updateFields.purchaseDate',
			'updateFields.extraFieldsJson',
			'updateFields.files',
			'updateFields.files.file',
		],
	},
	{
		parameters: {
			resource: 'registration',
			operation: 'updateStatus',
			registrationId: 'R1',
			status: 'approved',
			isPublic: true,
		},
		fuzzed: [
			'registrationId',
			'status',
			'isPublic',
			'additionalFields',
			'additionalFields.note',
			'additionalFields.assets',
			'additionalFields.assets.asset',
			'additionalFields.assetsJson',
			'additionalFields.binaryAssets',
		],
	},
	{ parameters: { resource: 'registration', operation: 'delete', registrationId: 'R1' }, fuzzed: ['registrationId'] },
	{
		parameters: { resource: 'registration', operation: 'getAll', returnAll: false, limit: 5 },
		fuzzed: ['returnAll', 'limit', 'filters', 'filters.email', 'filters.customerId', 'filters.formSlug'],
	},
	{
		parameters: { resource: 'serialNumber', operation: 'create', serialNumber: 'SN-1', sku: 'S', customerTags: 'a' },
		fuzzed: ['serialNumber', 'sku', 'customerTags', 'options.batchSize'],
	},
	{ parameters: { resource: 'serialNumber', operation: 'get', serialNumber: 'SN-1' }, fuzzed: ['serialNumber'] },
	{
		parameters: { resource: 'serialNumber', operation: 'getUnregistered' },
		fuzzed: ['options', 'options.maxRetries', 'options.timeout'],
	},
	{
		parameters: { resource: 'file', operation: 'upload' },
		fuzzed: ['binaryPropertyName', 'options', 'options.fileName', 'options.fileType'],
	},
];

/** Values users' data actually throws at nodes, and worse. */
const awkwardValue: fc.Arbitrary<unknown> = fc.oneof(
	fc.constantFrom('', ' ', null, 0, -1, 1.5, true, false, [], {}, 'null', 'undefined', '{}', '[]', '..', '%', '\u0000'),
	fc.string(),
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.string({ minLength: 2000, maxLength: 20_000 }),
	fc.integer(),
	fc.double(),
	fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 5 }),
	fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
	fc.jsonValue({ maxDepth: 3 }),
);

const GROUPS = new Set([
	'additionalFields',
	'additionalFields.customer',
	'additionalFields.customer.details',
	'additionalFields.extraFields',
	'additionalFields.extraFields.field',
	'additionalFields.assets',
	'additionalFields.assets.asset',
	'additionalFields.files',
	'additionalFields.files.file',
	'updateFields',
	'updateFields.files',
	'updateFields.files.file',
	'filters',
	'options',
]);

/**
 * Resource locators: the editor saves them as `{ __rl, mode, value }` with what was typed (text) or mapped (an
 * expression, which may give any value) as the value; n8n's own checks assume text there.
 */
const RESOURCE_LOCATORS = new Set(['registrationId']);

function savedAs(path: string, value: unknown, viaExpression: boolean): unknown {
	if (viaExpression || GROUPS.has(path)) {
		return RESOURCE_LOCATORS.has(path) ? { __rl: true, mode: 'id', value: '={{ $json.value }}' } : '={{ $json.value }}';
	}
	if (!RESOURCE_LOCATORS.has(path)) return value;
	return { __rl: true, mode: 'id', value: typeof value === 'string' ? value : (JSON.stringify(value) ?? '') };
}

function withValue(parameters: INodeParameters, path: string, value: unknown): INodeParameters {
	const copy = structuredClone(parameters) as Record<string, unknown>;
	const keys = path.split('.');
	let target = copy;
	for (const key of keys.slice(0, -1)) {
		if (target[key] === null || typeof target[key] !== 'object' || Array.isArray(target[key])) target[key] = {};
		target = target[key] as Record<string, unknown>;
	}
	target[keys[keys.length - 1]] = value;
	return copy as INodeParameters;
}

/** Words n8n's UX guidelines keep out of error messages. */
const WORDS_ERRORS_AVOID = /\b(error|problem|failure|mistake)s?\b/i;

/**
 * What a run ended in: fine, a proper n8n error naming the item in words n8n's guidelines allow, or the engine refusing
 * the parameters outright.
 */
function verdict(result: Awaited<ReturnType<typeof runNode>>): string {
	if (!result.error) return result.items.length > 0 ? 'ok' : 'no items';
	const error = result.error as { name?: string; message?: string; context?: { itemIndex?: number } };
	if (WORDS_ERRORS_AVOID.test(error.message ?? '')) return `a message in words n8n avoids: ${error.message}`;
	const namesItem = error.context?.itemIndex === 0 || /\bitem 0\b/.test(error.message ?? '');
	if ((error.name === 'NodeOperationError' || error.name === 'NodeApiError') && namesItem) return 'ok';
	return `bad error ${error.name}: ${error.message}`;
}

describe('fuzzed parameters', () => {
	beforeEach(() => {
		sandbox().state.createRegistrations([{ productName: 'Kettle' }]);
		sandbox().state.createSerialNumbers([{ serialNumber: 'SN-1' }, { serialNumber: 'SN-2' }]);
	});

	for (const { parameters, fuzzed } of operations) {
		test(`${parameters.resource}.${parameters.operation}: never a TypeError, a hang or a crash`, async () => {
			const counts = { runs: 0, refusedByEngine: 0 };
			await fc.assert(
				fc.asyncProperty(fc.constantFrom(...fuzzed), awkwardValue, fc.boolean(), async (path, value, viaExpression) => {
					counts.runs += 1;
					const item: INodeExecutionData = { json: { value: value as never }, binary: receipt };
					const fuzzedParameters = withValue(
						{ ...parameters, options: { retryDelay: 1, timeout: 2000, ...(parameters.options as object) } },
						path,
						savedAs(path, value, viaExpression) as NodeParameterValueType,
					);
					let result: Awaited<ReturnType<typeof runNode>>;
					try {
						result = await runNode({ parameters: fuzzedParameters, credentials: credentials(), items: [item] });
					} catch (error) {
						// n8n itself refuses to start a workflow whose required parameters are empty; the node never runs.
						if ((error as Error).name === 'WorkflowHasIssuesError') {
							counts.refusedByEngine += 1;
							return;
						}
						throw error;
					}
					const outcome = verdict(result);
					if (outcome !== 'ok' && outcome !== 'no items') {
						throw new Error(
							`${path} = ${JSON.stringify(value)?.slice(0, 200)} (expression: ${viaExpression}): ${outcome}`,
						);
					}
				}),
				{ seed: SEED, numRuns: RUNS_PER_PARAMETER * fuzzed.length, endOnFailure: true },
			);
			expect(counts.runs).toBe(RUNS_PER_PARAMETER * fuzzed.length);
		}, 120_000);
	}
});
