import type { INodeExecutionData } from 'n8n-workflow';

import { PAST_CAUTIOUS_START_LATENCY_MS, useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { MAX_ATTEMPTS } from '../../nodes/ProductRegistration/actions/serialNumber/getUnregistered.operation';
import { seededRandom } from '../../sandbox/random.cts';

const { sandbox, credentials } = useSandbox();

describe('serial number: Get Unregistered', () => {
	const getUnregistered = { resource: 'serialNumber', operation: 'getUnregistered' };
	const orders = (count: number): INodeExecutionData[] =>
		Array.from({ length: count }, (_, index) => ({ json: { order: 1000 + index } }));

	test('204 when the pool is empty is an item saying found: false', async () => {
		const result = await runNode({ parameters: getUnregistered, credentials: credentials() });

		expect(result.items).toEqual([
			{
				json: { found: false, message: 'The service has no unregistered serial number left' },
				pairedItem: { item: 0 },
			},
		]);
	});

	test('a registered serial is never handed out', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'FREE-1' }, { serialNumber: 'TAKEN-1' }]);
		sandbox().state.createRegistrations([{ productName: 'K', serialNumbers: ['TAKEN-1'] }]);

		const result = await runNode({ parameters: getUnregistered, credentials: credentials(), items: orders(3) });

		expect(result.items.map((item) => item.json.serialNumber ?? item.json.found)).toEqual(['FREE-1', false, false]);
	});

	test('items of one execution never share a serial; the ones left without one are told the pool is used up', async () => {
		sandbox().state.random = seededRandom(7);
		sandbox().state.createSerialNumbers([{ serialNumber: 'P-1' }, { serialNumber: 'P-2' }, { serialNumber: 'P-3' }]);

		// One item at a time with a seeded pick, so the run is the same every time.
		const result = await runNode({
			parameters: { ...getUnregistered, options: { concurrency: 1 } },
			credentials: credentials(),
			items: orders(5),
		});

		const found = result.items.filter((item) => item.json.found === true);
		expect(found.map((item) => item.json.serialNumber).sort()).toEqual(['P-1', 'P-2', 'P-3']);
		const leftWithout = result.items.filter((item) => item.json.found !== true);
		expect(leftWithout).toHaveLength(2);
		for (const item of leftWithout) {
			expect(item.json).toEqual({
				found: false,
				message: `Every serial number the service offered in ${MAX_ATTEMPTS} tries was already given to an earlier item of this execution: the unregistered pool is probably used up. Add serial numbers, or register the ones handed out, and run again.`,
			});
		}
		expect(result.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		// The items left without one asked the bounded number of times and no more.
		expect(sandbox().requestsTo('GET', '/api/serial_number').length).toBeLessThanOrEqual(5 * MAX_ATTEMPTS);
	});

	test('items running concurrently never share a serial either', async () => {
		sandbox().state.createSerialNumbers(Array.from({ length: 100 }, (_, index) => ({ serialNumber: `C-${index}` })));
		sandbox().latencyMs = PAST_CAUTIOUS_START_LATENCY_MS;

		const result = await runNode({
			parameters: { ...getUnregistered, options: { concurrency: 10 } },
			credentials: credentials(),
			items: orders(25),
		});

		const serials = result.items.map((item) => item.json.serialNumber);
		expect(result.items.every((item) => item.json.found === true)).toBe(true);
		expect(new Set(serials).size).toBe(25);
		expect(sandbox().peakInFlight).toBeGreaterThan(1);
	});

	test('a new execution may hand out the same serial again: nothing is remembered between executions', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'ONLY-1' }]);

		const first = await runNode({ parameters: getUnregistered, credentials: credentials() });
		const second = await runNode({ parameters: getUnregistered, credentials: credentials() });

		expect(first.items[0].json.serialNumber).toBe('ONLY-1');
		expect(second.items[0].json.serialNumber).toBe('ONLY-1');
	});
});
