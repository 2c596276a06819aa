/**
 * Reads that go on from a saved place — a chain of polls cut short by n8n 2.x's poll budget, From List's scroll token —
 * over imports that share a moment, which the real service (docs/service.md) lists in another order at each request.
 * The place carries the records of the anchor's moment already read (ListPosition.runRead), so a window that begins
 * inside that run holds its anchor (listReader.ts, rule 2) as in an unbroken read: nothing twice, nothing lost, no read
 * started over.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { searchList } from '../../harness/editorCalls.cts';
import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { REAL_SERVICE } from '../../sandbox/lists.cts';

const { sandbox, credentials } = useSandbox();
const MINUTE = 60_000;
let made = 0;

beforeEach(() => {
	sandbox().dialect = { ...REAL_SERVICE, ties: 'reordered' };
});

/** `count` registrations imported in batches of `batch` (each one moment), a minute apart: their ids, oldest first. */
function imported(count: number, batch: number, tag = 'c'): string[] {
	const entries = Array.from({ length: count }, () => {
		made += 1;
		return { productName: `Kettle K${made % 5}`, customerEmail: `${tag}${made}@example.com` };
	});
	return sandbox()
		.state.registerOverTime(entries, { batch, apartMs: MINUTE })
		.map((registration) => registration.id);
}
const idsOf = (items: INodeExecutionData[]) => items.map((item) => String(item.json.id));
const listRequests = () => sandbox().requestsTo('GET', '/api/registrations').length;

describe('From List (the editor) scrolling over imports of one moment', () => {
	async function scroll(): Promise<{ shown: string[]; answers: number }> {
		const shown: string[] = [];
		let token: string | undefined;
		let answers = 0;
		do {
			const answer = await searchList('searchRegistrations', credentials(), undefined, {}, token);
			shown.push(...answer.results.map((result) => String(result.value)));
			token = answer.paginationToken;
			answers += 1;
		} while (token !== undefined && answers < 40);
		return { shown, answers };
	}

	test.each([40, 60])(
		'600 imported in batches of %i: scrolling to the end shows each once',
		async (batch) => {
			const ids = imported(600, batch);
			const { shown } = await scroll();
			expect({
				missing: ids.filter((id) => !shown.includes(id)).length,
				twice: shown.length - new Set(shown).size,
			}).toEqual({ missing: 0, twice: 0 });
		},
		60_000,
	);
});

describe("the Poll Trigger's chain of polls cut short by n8n 2.x's poll budget, over imports of one moment", () => {
	type Saved = { started?: boolean; goOn?: { runRead?: string[] } };
	/** What the trigger saved in the workflow's static data. */
	const saved = (poller: PollingTrigger): Saved =>
		(poller as unknown as { workflow: { staticData: Record<string, Saved> } }).workflow.staticData[
			'node:Product Registration Poll Trigger'
		] ?? {};

	/** A node of version 1.1 in Any Order, activated under a poll budget of about three windows. */
	async function activatedUnderBudget(): Promise<PollingTrigger> {
		const poller = new PollingTrigger(
			{ event: 'newRegistration', options: { listOrder: 'anyOrder' } },
			credentials(),
			1.1,
		);
		poller.budgetMs = 100;
		sandbox().latencyMs = 15;
		await poller.activate();
		return poller;
	}

	/** Polls (each a minute on) until the activation's chain is done in memory, at most `most`: how many it took. */
	async function pollUntilStarted(poller: PollingTrigger, most: number): Promise<number> {
		let polls = 0;
		while (saved(poller).started !== true && polls < most) {
			sandbox().state.clockAheadMs += MINUTE;
			const { error } = await poller.poll();
			expect(error).toBeUndefined();
			polls += 1;
		}
		return polls;
	}

	test('version 1.1, Any Order, 1,000 imported in batches of 40, about three windows a poll: the activation chain costs no more than one whole read (14 requests) twice over, then one made after it comes out', async () => {
		imported(1000, 40);
		const poller = await activatedUnderBudget();
		const polls = await pollUntilStarted(poller, 30);
		const chainRequests = listRequests();
		sandbox().latencyMs = 0;
		poller.budgetMs = undefined;
		sandbox().state.clockAheadMs += MINUTE;
		const fresh = imported(1, 1, 'new');
		const emitted: string[] = [];
		for (let poll = 0; poll < 2; poll++) emitted.push(...idsOf((await poller.poll()).items));
		expect({
			polls,
			requests: chainRequests > 28 ? `${chainRequests} (more than 28)` : 'at most 28',
			emitted,
		}).toEqual({
			polls: expect.any(Number) as number,
			requests: 'at most 28',
			emitted: fresh,
		});
		expect(polls).toBeLessThan(30);
	}, 120_000);

	test('over a list without createdAt, the place a chain goes on from carries no records of a moment (none are known)', async () => {
		sandbox().dialect = { ...REAL_SERVICE, ties: 'reordered', createdAt: 'absent' };
		imported(1000, 1);
		const poller = await activatedUnderBudget();
		expect(saved(poller).goOn).toBeDefined();
		expect(saved(poller).goOn?.runRead ?? []).toEqual([]);
	}, 60_000);

	test('version 1.1, Any Order, 1,000 imported in batches of 40: one registration made at each poll while the activation chain goes on, then the budget lifted: each made from the 4th poll on comes out once', async () => {
		imported(1000, 40);
		const poller = await activatedUnderBudget();
		const later: string[] = [];
		const emitted: string[] = [];
		for (let poll = 0; poll < 12; poll++) {
			sandbox().state.clockAheadMs += MINUTE;
			const fresh = imported(1, 1, 'new');
			if (poll >= 3) later.push(...fresh);
			if (poll === 9) [sandbox().latencyMs, poller.budgetMs] = [0, undefined];
			emitted.push(...idsOf((await poller.poll()).items));
		}
		expect({
			never: later.filter((id) => !emitted.includes(id)).length,
			twice: emitted.length - new Set(emitted).size,
		}).toEqual({
			never: 0,
			twice: 0,
		});
	}, 120_000);
});
