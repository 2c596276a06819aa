import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { countExpressionEvaluations } from '../harness/expressionCount.cts';
import { credentialUse, resetCredentialUse, runNode } from '../harness/workflowRunner.cts';
import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_CONCURRENCY } from '../nodes/ProductRegistration/input/runOptions';
import { API_PAGE } from '../sandbox/lists.cts';
import type { Measurement } from './measure.cts';
import { measure } from './measure.cts';
import type { SandboxReady, SandboxSetup, SandboxStats } from './sandboxProcess.cts';

/** The round trip the sandbox adds to every request, as a real service across a network would. */
export const LATENCY_MS = 20;

export type Way = 'node' | 'naive';

export interface RunFigures {
	requests: number;
	itemsOut: number;
	errorItems: number;
	/** Credential reads and expression evaluations during the run (what costs most per item in a real n8n). */
	credentialReads: number;
	expressionEvaluations: number;
}

export interface BenchCase {
	id: string;
	title: string;
	parameters: INodeParameters;
	items: () => INodeExecutionData[];
	/** The records the service holds before the run. */
	seed?: (
		items: INodeExecutionData[],
	) => Pick<SandboxSetup, 'registrations' | 'registrationRows' | 'serialNumbers' | 'dialect'>;
	/** The same work done the naive way: one request per item, one after another, through the same engine. */
	naive?: { parameters: INodeParameters; sample?: number };
	/** How many requests run at once when done the node's way (for the floor: requests × latency / this). */
	concurrency: number;
	latencyMs?: number;
	/** A service that answers 429 when more than this many requests are in flight. */
	inFlightLimit?: number;
	/** Measured the second time the workflow runs in the process, as a busy shop runs it: after the pace the first left. */
	runBefore?: boolean;
}

const rows = (count: number, make: (index: number) => INodeExecutionData['json']) =>
	Array.from({ length: count }, (_, index) => ({ json: make(index) }));

const registrationsFromSheet = () =>
	rows(1000, (index) => ({
		product: `Kettle K${index % 7}`,
		email: `customer${index}@example.com`,
		name: `Customer ${index}`,
		serials: `KT-${index}`,
		bought: '2024-03-01',
	}));

const createRegistrations: INodeParameters = {
	resource: 'registration',
	operation: 'create',
	productName: '={{ $json.product }}',
	customerEmail: '={{ $json.email }}',
	customerName: '={{ $json.name }}',
	serialNumbers: '={{ $json.serials }}',
	purchaseDate: '={{ $json.bought }}',
};

const createSerials: INodeParameters = {
	resource: 'serialNumber',
	operation: 'create',
	serialNumber: '={{ $json.serial }}',
	sku: '={{ $json.sku }}',
	customerTags: '={{ $json.tags }}',
};

const serialRows = (count: number) =>
	rows(count, (index) => ({ serial: `SN-${String(index).padStart(6, '0')}`, sku: 'KETTLE-K1', tags: 'kettle, 2024' }));

const registrationIds = (count: number) => rows(count, (index) => ({ id: `R${String(index + 1).padStart(6, '0')}` }));

const perItem = (parameters: INodeParameters): Pick<BenchCase, 'parameters' | 'naive' | 'concurrency'> => ({
	parameters,
	naive: { parameters: { ...parameters, options: { concurrency: 1 } } },
	concurrency: DEFAULT_CONCURRENCY,
});

export const CASES: BenchCase[] = [
	{
		id: 'create-registrations',
		title: 'create 1,000 registrations',
		parameters: createRegistrations,
		items: registrationsFromSheet,
		naive: { parameters: { ...createRegistrations, options: { batchSize: 1, concurrency: 1 } } },
		concurrency: DEFAULT_BATCH_CONCURRENCY,
	},
	{
		id: 'create-serials',
		title: 'create 10,000 serial numbers',
		parameters: createSerials,
		items: () => serialRows(10_000),
		naive: { parameters: { ...createSerials, options: { batchSize: 1, concurrency: 1 } }, sample: 1000 },
		concurrency: DEFAULT_BATCH_CONCURRENCY,
	},
	{
		id: 'update-status',
		title: 'updateStatus on 500 registrations',
		...perItem({
			resource: 'registration',
			operation: 'updateStatus',
			registrationId: '={{ $json.id }}',
			status: 'approved',
			isPublic: true,
			additionalFields: { note: 'Checked' },
		}),
		items: () => registrationIds(500),
		seed: () => ({ registrations: 500 }),
	},
	{
		id: 'delete',
		title: 'delete 500 registrations',
		...perItem({ resource: 'registration', operation: 'delete', registrationId: '={{ $json.id }}' }),
		items: () => registrationIds(500),
		seed: () => ({ registrations: 500 }),
	},
	{
		id: 'get-serials',
		title: 'get 500 serial numbers',
		...perItem({ resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' }),
		items: () => serialRows(500),
		seed: (items) => ({ serialNumbers: items.map((item) => item.json.serial as string) }),
	},
	{
		id: 'get-serials-again',
		title: 'get 500 serial numbers, the workflow run again (the pace kept from the run before)',
		...perItem({ resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' }),
		items: () => serialRows(500),
		seed: (items) => ({ serialNumbers: items.map((item) => item.json.serial as string) }),
		runBefore: true,
	},
	{
		id: 'get-serials-rate-limited',
		title: 'get 500 serial numbers, service allows 8 at once (429 above)',
		...perItem({
			resource: 'serialNumber',
			operation: 'get',
			serialNumber: '={{ $json.serial }}',
			options: { maxRetries: 10, retryDelay: 50 },
		}),
		naive: undefined,
		items: () => serialRows(500),
		seed: (items) => ({ serialNumbers: items.map((item) => item.json.serial as string) }),
		inFlightLimit: 8,
	},
	{
		id: 'get-all',
		title: 'getAll returning 50,000 registrations, listed 100 a page as the real service lists them',
		parameters: { resource: 'registration', operation: 'getAll', returnAll: true },
		items: () => [{ json: {} }],
		seed: () => ({ registrations: 50_000 }),
		concurrency: 1,
	},
	{
		id: 'get-all-bare',
		title: 'getAll returning 50,000 registrations, listed in one answer as the API page reads',
		parameters: { resource: 'registration', operation: 'getAll', returnAll: true },
		items: () => [{ json: {} }],
		seed: () => ({ registrations: 50_000, dialect: API_PAGE }),
		concurrency: 1,
	},
	{
		id: 'skip-half-registered',
		title: 'create 1,000 rows of 200 customers with If Already Registered: Skip, half registered already',
		parameters: {
			resource: 'registration',
			operation: 'create',
			dataMode: 'autoMapInputData',
			options: { ifExists: 'skip' },
		},
		items: () =>
			rows(1000, (index) => ({
				'Product Name': `Kettle K${index % 5}`,
				Email: `customer${Math.floor(index / 5)}@example.com`,
				Serials: `KT-${index}`,
			})),
		seed: (items) => ({
			registrationRows: items
				.filter((_, index) => index % 2 === 0)
				.map(({ json }) => ({
					productName: json['Product Name'],
					customerEmail: json.Email,
					serialNumbers: [json.Serials],
				})),
		}),
		concurrency: DEFAULT_CONCURRENCY,
	},
	{
		id: 'overhead-constant',
		title: 'batched create of 10,000 serial numbers, no latency, fixed values',
		parameters: {
			resource: 'serialNumber',
			operation: 'create',
			serialNumber: 'SN-1',
			sku: 'KETTLE-K1',
			customerTags: 'kettle',
		},
		items: () => serialRows(10_000),
		concurrency: DEFAULT_BATCH_CONCURRENCY,
		latencyMs: 0,
	},
	{
		id: 'overhead-mapped',
		title: 'batched create of 10,000 serial numbers, no latency, 3 fields mapped as {{ $json.field }}',
		parameters: createSerials,
		items: () => serialRows(10_000),
		concurrency: DEFAULT_BATCH_CONCURRENCY,
		latencyMs: 0,
	},
	{
		id: 'overhead-expressions',
		title: 'batched create of 10,000 serial numbers, no latency, 3 computed expressions',
		parameters: {
			resource: 'serialNumber',
			operation: 'create',
			serialNumber: '={{ $json.serial.trim() }}',
			sku: '={{ $json.sku.toUpperCase() }}',
			customerTags: '={{ $json.tags + "" }}',
		},
		items: () => serialRows(10_000),
		concurrency: DEFAULT_BATCH_CONCURRENCY,
		latencyMs: 0,
	},
	{
		id: 'overhead-map-automatically',
		title: 'batched create of 10,000 registrations, no latency, Map Automatically',
		parameters: { resource: 'registration', operation: 'create', dataMode: 'autoMapInputData' },
		items: () =>
			rows(10_000, (index) => ({ 'Product Name': `Kettle K${index % 7}`, Email: `customer${index}@example.com` })),
		concurrency: DEFAULT_BATCH_CONCURRENCY,
		latencyMs: 0,
	},
];

/** Starts the sandbox in a process of its own, set up for a case, and returns its address and controls. */
export async function startSandbox(setup: SandboxSetup) {
	const child = fork(join(__dirname, 'sandboxProcess.cts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const next = <T,>(type: string) =>
		new Promise<T>((resolve, reject) => {
			const onExit = (code: number | null) => reject(new Error(`The sandbox process exited (${code})`));
			const onMessage = (message: { type: string } & T) => {
				if (message.type !== type) return;
				child.off('message', onMessage);
				child.off('exit', onExit);
				resolve(message);
			};
			child.on('message', onMessage);
			child.once('exit', onExit);
		});
	await next('started');
	const stats = async () => {
		const answer = next<{ stats: SandboxStats }>('stats');
		child.send({ type: 'stats' });
		return (await answer).stats;
	};
	const setUp = async (newSetup: SandboxSetup) => {
		const ready = next<{ ready: SandboxReady }>('ready');
		child.send({ type: 'setup', setup: newSetup });
		return (await ready).ready;
	};
	return {
		...(await setUp(setup)),
		/** Sets the sandbox up anew for another case (add `reset: true` to start from empty). */
		setUp,
		requests: async () => (await stats()).requests,
		stats,
		stop: () => child.send({ type: 'stop' }),
	};
}

/** Runs one case one way in this process, against a fresh sandbox in another process, and measures it. */
export async function measureCase(bench: BenchCase, way: Way): Promise<Measurement<RunFigures>> {
	const sample = way === 'naive' ? bench.naive?.sample : undefined;
	const items = sample ? bench.items().slice(0, sample) : bench.items();
	const sandbox = await startSandbox({
		latencyMs: bench.latencyMs ?? LATENCY_MS,
		inFlightLimit: bench.inFlightLimit,
		...bench.seed?.(items),
	});
	try {
		const parameters = way === 'naive' && bench.naive ? bench.naive.parameters : bench.parameters;
		const credentials = { baseUrl: sandbox.baseUrl, accessToken: sandbox.token };
		// A running n8n has long loaded the engine, the HTTP client and the expression engine: load them first, so
		// the figures are those of a warm instance, not of a process loading code.
		await runNode(
			bench.runBefore && way === 'node'
				? { parameters, credentials, items }
				: { parameters: { resource: 'serialNumber', operation: 'get', serialNumber: '={{ "warm-up" }}' }, credentials },
		);
		const requestsBefore = await sandbox.requests();
		resetCredentialUse();
		const evaluations = countExpressionEvaluations();
		const measured = await measure(async () => {
			const run = await runNode({ parameters, credentials, items, continueOnFail: true });
			if (run.error) throw new Error(run.error.message);
			return {
				requests: 0,
				itemsOut: run.items.length,
				errorItems: run.items.filter((item) => item.json.error !== undefined).length,
				credentialReads: credentialUse.reads,
				expressionEvaluations: evaluations.count(),
			};
		});
		evaluations.restore();
		measured.result.requests = (await sandbox.requests()) - requestsBefore;
		return measured;
	} finally {
		sandbox.stop();
	}
}
