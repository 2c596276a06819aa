import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { useSandbox } from '../../harness/sandbox';
import { nodeTypes, PRODUCT_REGISTRATION_TYPE, runNode } from '../../harness/workflowRunner';

/**
 * A service that sustains a rate limit (the sandbox's: a bucket of `burst` requests refilled at `perSecond`, 429
 * beyond), on real sockets: no item fails for it, the whole run keeps to its pace, and Stop ends a pause at once.
 */

const { sandbox, credentials } = useSandbox();

const serials = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({ json: { serial: `S-${index}` } }));

const getSerials = {
	resource: 'serialNumber',
	operation: 'get',
	serialNumber: '={{ $json.serial }}',
	options: { maxRetries: 0 },
};

/** Rows of `customers` customers, five each, for a Create with If Already Registered: Skip. */
const sheet = (rows: number, customers: number): INodeExecutionData[] =>
	Array.from({ length: rows }, (_, index) => ({
		json: { Product: `Product ${index % 5}`, Email: `customer${Math.floor(index / 5) % customers}@example.com` },
	}));

const importWithSkip = {
	resource: 'registration',
	operation: 'create',
	dataMode: 'autoMapInputData',
	options: { ifExists: 'skip' },
};

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
	const started = Date.now();
	const result = await work();
	return { result, seconds: (Date.now() - started) / 1000 };
}

describe.each([
	['with Retry-After', true],
	['with a bare 429', false],
])('a service that allows 20 requests a second (%s)', (_case, retryAfter) => {
	beforeEach(() => sandbox().limitRate({ perSecond: 20, burst: 20, retryAfter }));

	test('120 lookups with Retries 0: every item through, at the service pace', async () => {
		sandbox().state.createSerialNumbers(serials(120).map((item) => ({ serialNumber: item.json.serial as string })));

		const { result, seconds } = await timed(() =>
			runNode({ parameters: getSerials, credentials: credentials(), items: serials(120) }),
		);

		expect(result.error).toBeUndefined();
		expect(result.items.filter((item) => item.json.found === true)).toHaveLength(120);
		expect(sandbox().refusals!.refused).toBeGreaterThan(0);
		// 100 requests beyond the burst at 20 a second: 5 s; kept to within 1.25 × that, and never faster.
		expect(seconds).toBeGreaterThanOrEqual(4);
		expect(seconds).toBeLessThanOrEqual(6.25);
	}, 20_000);

	test('an import with Skip shares one pace across its pages and its creates: nothing fails, nothing twice', async () => {
		sandbox().state.createRegistrations(
			Array.from({ length: 3000 }, (_, index) => ({ productName: 'Old', customerEmail: `old${index}@example.com` })),
		);

		const { result, seconds } = await timed(() =>
			runNode({ parameters: importWithSkip, credentials: credentials(), items: sheet(500, 100) }),
		);

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.outcome)).toEqual(Array(500).fill('created'));
		// The 34 overlapping windows over the 3,000 registrations and a look at the newest end cost less than 100
		// lookups; then 5 creates of 100: 40 requests, 20 of them beyond the burst.
		expect(sandbox().requests.length - sandbox().refusals!.refused).toBe(40);
		expect(sandbox().refusals!.refused).toBeGreaterThan(0);
		expect(seconds).toBeLessThanOrEqual(1.25 * (20 / 20) + 0.5);
		expect(sandbox().state.registrations.size).toBe(3500);
	}, 20_000);
});

test('Stop during the pause a 429 asked for ends the run at once, and nothing more is sent', async () => {
	const nodeType = nodeTypes.getByNameAndVersion(PRODUCT_REGISTRATION_TYPE, 1) as INodeType;
	const execute = nodeType.execute!;
	let returnedAt = 0;
	nodeType.execute = async function (this: IExecuteFunctions) {
		try {
			return await execute.call(this);
		} finally {
			returnedAt = Date.now();
		}
	};
	sandbox().faultPlan = () => ({
		status: 429,
		headers: { 'retry-after': '60' },
		body: { message: 'Too many requests' },
	});
	// Retries 3 and Timeout 30 s: a request may be refused for 2 minutes before it fails.
	const waitingItems = { ...getSerials, options: {} };
	let stoppedAt = 0;
	const stop = (async () => {
		while (sandbox().requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
		await new Promise((resolve) => setTimeout(resolve, 200));
		stoppedAt = Date.now();
	})();

	try {
		const result = await runNode({
			parameters: waitingItems,
			credentials: credentials(),
			items: serials(3),
			continueOnFail: true,
			stop,
		});

		// n8n keeps no output of a node it stopped.
		expect(result.items).toEqual([]);
		expect(returnedAt - stoppedAt).toBeLessThan(1000);
		expect(sandbox().requests).toHaveLength(3);
	} finally {
		delete (nodeType as { execute?: unknown }).execute;
	}
}, 15_000);
