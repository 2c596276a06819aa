import { ExecuteContext } from 'n8n-core';
import type {
	IExecuteFunctions,
	IGetNodeParameterOptions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	NodeParameterValueType,
} from 'n8n-workflow';

import { countExpressionEvaluations } from '../../harness/expressionCount.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import {
	credentialUse,
	nodeTypes,
	PRODUCT_REGISTRATION_TYPE,
	resetCredentialUse,
	runNode,
} from '../../harness/workflowRunner.cts';
import { runParameters } from '../../nodes/ProductRegistration/input/runParameters';

/**
 * What a run costs n8n, counted: in a real n8n every credential read goes to the database and is decrypted, the
 * credential's authentication expression costs an expression evaluation, and every parameter read costs resolving
 * it (about 1 ms for an expression in n8n 1.123). None of that may grow with the number of requests.
 */

const { sandbox, credentials } = useSandbox();

const rows = (count: number, make: (index: number) => INodeExecutionData['json']) =>
	Array.from({ length: count }, (_, index) => ({ json: make(index) }));

/** Counts n8n's parameter reads of the node (every `getNodeParameter` ends in `_getNodeParameter`) by name, until restored. */
function countParameterReads(): { reads: Record<string, number>; restore: () => void } {
	const reads: Record<string, number> = {};
	const prototype = ExecuteContext.prototype as unknown as { _getNodeParameter: (...args: unknown[]) => unknown };
	const read = prototype._getNodeParameter;
	const spy = jest.spyOn(prototype, '_getNodeParameter').mockImplementation(function (
		this: ExecuteContext,
		...args: unknown[]
	) {
		const name = String(args[0]);
		reads[name] = (reads[name] ?? 0) + 1;
		return read.apply(this, args);
	} as never);
	return { reads, restore: () => spy.mockRestore() };
}

/** Runs `probe` inside the node's run, with the real ExecuteContext n8n gives it, and returns what it returned. */
async function insideTheNode<T>(
	parameters: INodeParameters,
	items: INodeExecutionData[],
	probe: (context: IExecuteFunctions) => T,
): Promise<T> {
	const nodeType = nodeTypes.getByNameAndVersion(PRODUCT_REGISTRATION_TYPE, 1) as INodeType;
	let result: T | undefined;
	nodeType.execute = async function (this: IExecuteFunctions) {
		result = probe(this);
		return [[]];
	};
	try {
		const run = await runNode({ parameters, credentials: credentials(), items });
		if (run.error) throw run.error;
	} finally {
		delete (nodeType as { execute?: unknown }).execute;
	}
	return result as T;
}

describe('a field mapped as {{ $json.field }}', () => {
	const values = [
		'KT-1',
		'ünïcode ☕',
		'',
		0,
		42,
		1.5,
		true,
		false,
		['a', 'b'],
		{ nested: { id: 7 } },
		null,
		undefined,
	];
	const items = values.map((value) => ({
		json: { 'the field': value, nested: { id: value } } as INodeExecutionData['json'],
	}));

	test.each<[string, IGetNodeParameterOptions, NodeParameterValueType?]>([
		['={{ $json["the field"] }}', {}],
		["={{ $json.nested['id'] }}", {}],
		[
			'={{ $json["the field"] }}',
			{ extractValue: true },
			{ __rl: true, mode: 'id', value: '={{ $json["the field"] }}' },
		],
	])(
		'%s gives every item what n8n gives it, without its expression engine',
		async (expression, options, saved = expression) => {
			const evaluations = countExpressionEvaluations();
			const { fast, n8n } = await insideTheNode(
				{ resource: 'registration', operation: 'delete', registrationId: saved },
				items,
				(context) => ({
					fast: items.map((_, index) => runParameters(context).get('registrationId', index, undefined, options)),
					n8n: items.map((_, index) => context.getNodeParameter('registrationId', index, undefined, options)),
				}),
			);
			evaluations.restore();

			expect(fast).toEqual(n8n);
			// n8n's own evaluations above, one per item, plus those the fast path left to n8n: the null and missing values.
			expect(evaluations.count()).toBe(items.length + 2);
		},
	);
});

describe('a run of the node', () => {
	beforeEach(() => resetCredentialUse());

	test.each<[string, INodeParameters, () => INodeExecutionData[], () => void]>([
		[
			'Change Status on 60 items',
			{
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: '={{ $json.id }}',
				status: 'approved',
				isPublic: true,
			},
			() => rows(60, (index) => ({ id: `R${String(index + 1).padStart(6, '0')}` })),
			() =>
				sandbox().state.createRegistrations(rows(60, (index) => ({ productName: `P${index}` })).map((row) => row.json)),
		],
		[
			'Create of 250 registrations in 3 batches',
			{
				resource: 'registration',
				operation: 'create',
				productName: '={{ $json.product }}',
				customerEmail: '={{ $json.email }}',
			},
			() => rows(250, (index) => ({ product: `Kettle ${index}`, email: `c${index}@example.com` })),
			() => undefined,
		],
	])(
		'%s reads the credential once and evaluates no authentication expression',
		async (_case, parameters, items, seed) => {
			seed();

			const run = await runNode({ parameters, credentials: credentials(), items: items() });

			expect(run.error).toBeUndefined();
			expect(sandbox().requests.length).toBeGreaterThan(1);
			expect(sandbox().requests.every((request) => request.headers.authorization === `Bearer ${sandbox().token}`)).toBe(
				true,
			);
			expect(credentialUse).toEqual({ reads: 1, authentications: 0 });
		},
	);

	test('reads a parameter that holds no expression once per run, and one that does once per item', async () => {
		sandbox().state.createRegistrations(rows(40, (index) => ({ productName: `P${index}` })).map((row) => row.json));
		const counted = countParameterReads();
		try {
			const run = await runNode({
				parameters: {
					resource: 'registration',
					operation: 'updateStatus',
					registrationId: { __rl: true, mode: 'id', value: '={{ $json.id.trim() }}' },
					status: 'approved',
					isPublic: true,
					additionalFields: { note: 'Checked' },
					options: { maxRetries: 2 },
				},
				credentials: credentials(),
				items: rows(40, (index) => ({ id: `R${String(index + 1).padStart(6, '0')}` })),
			});
			expect(run.error).toBeUndefined();
		} finally {
			counted.restore();
		}

		expect(counted.reads).toEqual({
			resource: 1,
			operation: 1,
			'options.concurrency': 1,
			options: 1,
			registrationId: 40,
			status: 1,
			isPublic: 1,
			additionalFields: 1,
		});
	});

	test('Change Status with the registration mapped as {{ $json.id }} evaluates no expression', async () => {
		sandbox().state.createRegistrations(rows(30, (index) => ({ productName: `P${index}` })).map((row) => row.json));
		const evaluations = countExpressionEvaluations();
		try {
			const run = await runNode({
				parameters: {
					resource: 'registration',
					operation: 'updateStatus',
					registrationId: '={{ $json.id }}',
					status: 'approved',
					isPublic: true,
				},
				credentials: credentials(),
				items: rows(30, (index) => ({ id: `R${String(index + 1).padStart(6, '0')}` })),
			});
			expect(run.error).toBeUndefined();
			expect(sandbox().requests).toHaveLength(30);
		} finally {
			evaluations.restore();
		}

		expect(evaluations.count()).toBe(0);
	});

	test('in Map Automatically reads no parameter per item, so evaluates no expression per item', async () => {
		const counted = countParameterReads();
		try {
			const run = await runNode({
				parameters: {
					resource: 'registration',
					operation: 'create',
					dataMode: 'autoMapInputData',
					options: { batchSize: 50 },
				},
				credentials: credentials(),
				items: rows(200, (index) => ({ Product: `Kettle ${index}`, Email: `c${index}@example.com` })),
			});
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(200);
		} finally {
			counted.restore();
		}

		expect(Object.values(counted.reads).every((reads) => reads === 1)).toBe(true);
		expect(counted.reads.dataMode).toBe(1);
	});
});
