/**
 * What an adversarial review of the lists rebuilt on the service's stated rules found, each a minimal engine test that
 * failed on that rebuild, on both engine lines: an activation over a list of the newest first that starts over, From
 * List over imports of one moment, a bare array read a window at a time, pages of a fixed size at the list's end.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { PollContext } from 'n8n-core';

import { searchList } from '../../harness/editorCalls.cts';
import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { API_PAGE, REAL_SERVICE } from '../../sandbox/lists.cts';

const { sandbox, credentials } = useSandbox();
const SECOND = 1000;
const MINUTE = 60 * SECOND;
let made = 0;

/** Batches of `sizes` (each one createdAt), `apartMs` apart, the last made now: their ids, the oldest first. */
function made_(sizes: number[], apartMs = MINUTE, tag = 'c'): string[] {
	const ids: string[] = [];
	sizes.forEach((size, index) => {
		const createdAt = new Date(sandbox().state.now().getTime() - (sizes.length - 1 - index) * apartMs).toISOString();
		const entries = Array.from({ length: size }, () => ({
			productName: `Kettle K${++made % 5}`,
			customerEmail: `${tag}${made}@example.com`,
		}));
		ids.push(
			...sandbox()
				.state.createRegistrations(entries, createdAt)
				.registrations.map((r) => r.id),
		);
	});
	return ids;
}
const ones = (count: number) => Array.from({ length: count }, () => 1);
const idsOf = (items: INodeExecutionData[]) => items.map((item) => String(item.json.id));
const listRequests = () => sandbox().requestsTo('GET', '/api/registrations');
/** Runs `act` before the `nth` list request is answered. */
function atListRequest(nth: number, act: () => void): void {
	let lists = 0;
	sandbox().faultPlan = (request) => {
		if (request.method === 'GET' && request.path === '/api/registrations' && ++lists === nth) act();
		return undefined;
	};
}
async function pollsEmit(poller: PollingTrigger, polls: number): Promise<{ emitted: string[]; errors: string[] }> {
	const emitted: string[] = [];
	const errors: string[] = [];
	for (let poll = 0; poll < polls; poll++) {
		sandbox().state.clockAheadMs += MINUTE;
		const { items, error } = await poller.poll();
		emitted.push(...idsOf(items));
		if (error) errors.push(error.message);
	}
	return { emitted, errors };
}

describe('1. the activation starts its read over and takes what was made meanwhile for seen (never emitted)', () => {
	test.each([0, 2])(
		'version 1.1 (Newest First, the default), the real service (its quirk leaving out %i), one registration a second: 3 made while the activation reads, the 9th newest deleted meanwhile: the 3 come out',
		async (quirk) => {
			sandbox().dialect = { ...REAL_SERVICE, largePagesMissNewest: quirk };
			made_(ones(150), SECOND);
			const meanwhile: string[] = [];
			atListRequest(2, () => {
				sandbox().state.deleteRegistration([...sandbox().state.registrations.keys()].reverse()[8]);
				sandbox().state.clockAheadMs += 5 * SECOND;
				meanwhile.push(...made_(ones(3), SECOND, 'new'));
			});
			const poller = new PollingTrigger({ event: 'newRegistration' }, credentials(), 1.1);
			await poller.activate();
			sandbox().faultPlan = undefined;
			const { emitted, errors } = await pollsEmit(poller, 3);
			expect({ emitted: [...emitted].sort(), errors }).toEqual({ emitted: meanwhile, errors: [] });
		},
	);
});

describe('2. From List (the editor) on the real service', () => {
	async function scroll(between: (answer: number) => void = () => undefined) {
		const shown: string[] = [];
		let token: string | undefined;
		let answers = 0;
		do {
			if (answers > 0) between(answers);
			const answer = await searchList('searchRegistrations', credentials(), undefined, {}, token);
			shown.push(...answer.results.map((result) => String(result.value)));
			token = answer.paginationToken;
			answers += 1;
		} while (token !== undefined && answers < 20);
		return shown;
	}

	test('300 imported in batches of 10 (ties reordered): scrolling shows each once', async () => {
		sandbox().dialect = { ...REAL_SERVICE, ties: 'reordered' };
		const ids = made_(Array.from({ length: 30 }, () => 10));
		const shown = await scroll();
		expect({
			missing: ids.filter((id) => !shown.includes(id)).length,
			twice: shown.length - new Set(shown).size,
		}).toEqual({ missing: 0, twice: 0 });
	});

	test('300 made one a minute; one of the 99 shown is deleted before the user scrolls on: the scroll reaches the oldest', async () => {
		const ids = made_(ones(300));
		const shown = await scroll((answer) => {
			if (answer === 1) sandbox().state.deleteRegistration(ids[ids.length - 50]);
		});
		expect(shown).toContain(ids[0]);
	});
});

describe('3. costs on the real service', () => {
	test('Get Many over 1,000 imported in batches of 48: each window reads the last import again whole, so moves on by 50 at least (at most 21 requests)', async () => {
		sandbox().dialect = { ...REAL_SERVICE, ties: 'reordered' };
		made_(Array.from({ length: 21 }, (_, index) => (index < 20 ? 48 : 40)));
		await runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true },
			credentials: credentials(),
		});
		expect(listRequests().length).toBeLessThanOrEqual(Math.ceil(1000 / 50) + 1);
	});
});

describe("5. the API page's bare array", () => {
	test('a registration made while a poll reads the bare array: it comes once, with no "not the newest first" warning, and a node of version 1 keeps the order it learned', async () => {
		sandbox().dialect = { ...API_PAGE };
		made_(ones(200));
		const logged: string[] = [];
		const quiet = () => undefined;
		Object.defineProperty(PollContext.prototype, 'logger', {
			configurable: true,
			get: () => ({
				warn: (message: string) => logged.push(message),
				debug: quiet,
				info: quiet,
				error: quiet,
				verbose: quiet,
			}),
		});
		try {
			for (const [version, listOrder] of [
				[1, 'learn'],
				[1.1, 'anyOrder'],
			] as const) {
				const poller = new PollingTrigger({ event: 'newRegistration', options: { listOrder } }, credentials(), version);
				await poller.activate();
				const learned = poller.savedState.order;
				sandbox().state.clockAheadMs += 10 * MINUTE;
				atListRequest(2, () => void made_([1], MINUTE, 'new'));
				const { emitted } = await pollsEmit(poller, 2);
				sandbox().faultPlan = undefined;
				expect({ emitted: emitted.length, order: poller.savedState.order }).toEqual({ emitted: 1, order: learned });
			}
		} finally {
			delete (PollContext.prototype as unknown as { logger?: unknown }).logger;
		}
		expect(logged).toEqual([]);
	});

	test('a quiet poll of a node of version 1.1 over 5,000: one answer of 10 reaches what was seen; the whole list is not asked for', async () => {
		sandbox().dialect = { ...API_PAGE };
		made_(ones(5000));
		const poller = new PollingTrigger({ event: 'newRegistration' }, credentials(), 1.1);
		await poller.activate();
		const before = listRequests().length;
		await pollsEmit(poller, 1);
		expect(
			listRequests()
				.slice(before)
				.map((request) => request.query.limit ?? 'no limit: every registration'),
		).toEqual(['10']);
	});
});

describe('6. other readings the API page leaves open', () => {
	test('a list in no order, 20 a page whatever limit asks, 11 made one a minute: a batch of 20 made after activation comes out whole (found by PROPERTY_SEED=7)', async () => {
		sandbox().dialect = { ...REAL_SERVICE, order: 'none', limit: 'ignored', defaultPageSize: 20 };
		made_(ones(11));
		const poller = new PollingTrigger(
			{ event: 'newRegistration', options: { listOrder: 'anyOrder' } },
			credentials(),
			1.1,
		);
		await poller.activate();
		sandbox().state.clockAheadMs += MINUTE;
		const fresh = made_([20], MINUTE, 'new');
		const { emitted, errors } = await pollsEmit(poller, 3);
		expect({ never: fresh.filter((id) => !emitted.includes(id)), errors }).toEqual({ never: [], errors: [] });
	});

	test('the newest first, 20 a page whatever limit asks, exactly 38 registrations: Get Many gives the 38', async () => {
		sandbox().dialect = { ...REAL_SERVICE, limit: 'ignored', defaultPageSize: 20 };
		made_(ones(38));
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true },
			credentials: credentials(),
		});
		expect(result.items).toHaveLength(38);
	});

	test('a list in no order, 20 a page whatever limit asks, exactly 38 registrations: the poll trigger activates', async () => {
		sandbox().dialect = { ...REAL_SERVICE, order: 'none', limit: 'ignored', defaultPageSize: 20 };
		made_(ones(38));
		const poller = new PollingTrigger(
			{ event: 'newRegistration', options: { listOrder: 'anyOrder' } },
			credentials(),
			1.1,
		);
		expect(
			await poller.activate().then(
				() => 'activated',
				(error: Error) => error.message,
			),
		).toBe('activated');
	});

	test('page and limit ignored (one answer of up to 20, with its total), 15 made by one create request: a node of version 1.1 activates', async () => {
		sandbox().dialect = { ...REAL_SERVICE, pages: 'ignored', limit: 'ignored', defaultPageSize: 20 };
		made_([15]);
		const poller = new PollingTrigger({ event: 'newRegistration' }, credentials(), 1.1);
		expect(
			await poller.activate().then(
				() => 'activated',
				(error: Error) => error.message,
			),
		).toBe('activated');
	});
});
