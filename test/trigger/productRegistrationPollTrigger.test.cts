import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { MAX_REMEMBERED } from '../../nodes/ProductRegistrationPollTrigger/newRegistrations';
import { LISTED_LATE_WITHIN_MS } from '../../nodes/ProductRegistrationPollTrigger/pollState';
import { API_PAGE } from '../../sandbox/lists.cts';

/**
 * The poll trigger as n8n runs an active workflow's poller (n8n-core's PollContext, static data saved after the
 * activation and with each poll that emits), against the sandbox on real sockets: every registration comes out in
 * exactly one poll, whatever arrives, shifts, fails or restarts in between, in every dialect the API page leaves open.
 */

const { sandbox, credentials } = useSandbox();

const HOUR = 3_600_000;
let registered = 0;
/**
 * Registers `count` products for new customers, in one request as a busy form would see them; `agoMs` dates them
 * that long before now (a registration listed late, or the shop's history).
 */
function register(count: number, options: { form?: string; agoMs?: number } = {}): string[] {
	const createdAt = options.agoMs === undefined ? undefined : new Date(Date.now() - options.agoMs).toISOString();
	const { registrations } = sandbox().state.createRegistrations(
		Array.from({ length: count }, () => {
			registered += 1;
			return {
				productName: 'Kettle K1',
				customerEmail: `buyer${registered}@example.com`,
				'where-did-you-buy-it': 'Online',
				...(options.form ? { type: options.form } : {}),
			};
		}),
		createdAt,
	);
	return registrations.map((registration) => registration.id);
}

/** Moves the service's clock on, as if that much time passed. */
const laterBy = (ms: number) => {
	sandbox().state.clockAheadMs += ms;
};

const trigger = (parameters = {}) => new PollingTrigger({ event: 'newRegistration', ...parameters }, credentials());
/** A shop's history: `count` registrations made over the past ten hours, the last an hour ago, each at its moment. */
function history(count: number): void {
	for (let made = 0; made < count; made++) register(1, { agoMs: HOUR + ((count - made) * 9 * HOUR) / count });
}

/** The ids emitted, under whichever key the dialect lists them. */
const ids = (items: Array<{ json: Record<string, unknown> }>) =>
	items.map((item) => String(item.json.id ?? item.json.regId ?? item.json.registrationId));
const numbered = (list: string[]) => list.map((id) => String(Number(id.slice(1))));
const listRequests = () =>
	sandbox()
		.requestsTo('GET', '/api/registrations')
		.map((request) => request.query);

beforeEach(() => {
	registered = 0;
});

describe('Product Registration Poll Trigger', () => {
	test('the first activation emits nothing and starts from now, with one small request; a quiet poll costs one', async () => {
		register(5, { agoMs: HOUR });
		const poller = trigger();

		expect(await poller.activate()).toEqual([]);
		expect(listRequests()).toHaveLength(1);
		sandbox().requests.length = 0;

		expect(await poller.poll()).toEqual({ items: [] });
		expect(listRequests()).toHaveLength(1);
	});

	test('a new registration comes as it is listed, with its id, fieldData, and its fields also under fields', async () => {
		const poller = trigger();
		await poller.activate();
		const [id] = register(1);

		const { items } = await poller.poll();

		expect(items).toEqual([
			{
				json: expect.objectContaining({
					id,
					productName: 'Kettle K1',
					customerEmail: 'buyer1@example.com',
					fieldData: { 'where-did-you-buy-it': 'Online' },
					fields: { 'where-did-you-buy-it': 'Online' },
					createdAt: expect.any(String),
				}),
			},
		]);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('a burst of 250 between two polls comes in one poll, each once, the oldest first, read only back to what was made before it', async () => {
		history(1000);
		const poller = trigger();
		await poller.activate();
		const burst = register(250);
		sandbox().requests.length = 0;

		const { items } = await poller.poll();

		expect(ids(items)).toEqual(burst);
		// A small window, then windows of up to 100 that each overlap the one before, through the burst to the first
		// registration made before the activation less the lateness allowed.
		expect(listRequests().length).toBeLessThanOrEqual(4);
		expect(listRequests().every((query) => Number(query.limit) <= 100)).toBe(true);
		// Quiet polls: the next reads back over the burst, made within the lateness allowed; once the service's clock is
		// past it, a quiet poll costs one small request again.
		laterBy(10 * 60_000);
		expect((await poller.poll()).items).toEqual([]);
		laterBy(10 * 60_000);
		sandbox().requests.length = 0;
		expect((await poller.poll()).items).toEqual([]);
		expect(listRequests()).toHaveLength(1);
	});

	test('registrations that arrive while a poll reads its windows come in that poll or the next, none twice', async () => {
		const poller = trigger();
		await poller.activate();
		const burst = register(150);
		let arrivals: string[] = [];
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2' && arrivals.length === 0) arrivals = register(2);
			return undefined;
		};

		const emitted = [...ids((await poller.poll()).items), ...ids((await poller.poll()).items)];

		expect(emitted.sort()).toEqual([...burst, ...arrivals].sort());
	});

	test('registrations deleted while a poll reads its windows hide no other', async () => {
		register(300, { agoMs: HOUR });
		const poller = trigger();
		await poller.activate();
		const burst = register(250);
		const deleted: string[] = [];
		sandbox().faultPlan = (request) => {
			// Deletes registrations the poll has read already: the rest move up a place each.
			if (request.query.page === '2' && deleted.length === 0) {
				for (const id of burst.slice(-5)) {
					sandbox().state.deleteRegistration(id);
					deleted.push(id);
				}
			}
			return undefined;
		};

		const { items } = await poller.poll();

		expect(ids(items).filter((id) => !deleted.includes(id))).toEqual(burst.filter((id) => !deleted.includes(id)));
		expect((await poller.poll()).items).toEqual([]);
	});

	test('a registration listed late — made before ones already emitted — comes once', async () => {
		const poller = trigger();
		await poller.activate();
		const first = register(3);
		expect(ids((await poller.poll()).items)).toEqual(first);

		const [late] = register(1, { agoMs: LISTED_LATE_WITHIN_MS / 2 });

		expect(ids((await poller.poll()).items)).toEqual([late]);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('pages of 100 that leave out the newest registrations miss nothing: the first, small window shows them', async () => {
		const poller = trigger();
		await poller.activate();
		sandbox().dialect.largePagesMissNewest = 3;
		const burst = register(15);

		const { items } = await poller.poll();

		expect(ids(items)).toEqual(burst);
	});

	test('a seen registration that is deleted brings nothing back', async () => {
		const poller = trigger();
		await poller.activate();
		const [first, second] = register(2);
		expect(ids((await poller.poll()).items)).toEqual([first, second]);
		sandbox().state.deleteRegistration(second);
		sandbox().state.deleteRegistration(first);
		const [third] = register(1);

		expect(ids((await poller.poll()).items)).toEqual([third]);
	});

	test('a poll that fails shows the error and changes nothing: the next poll catches up', async () => {
		const poller = trigger();
		await poller.activate();
		const before = register(2);
		sandbox().faultQueue.push({ status: 500, body: { message: 'Internal error' } });

		const failed = await poller.poll();
		const caughtUp = await poller.poll();

		expect(failed.error?.message).toBe('The service answered HTTP 500: Internal error');
		expect(ids(caughtUp.items)).toEqual(before);
	});

	test('n8n restarts between polls: registrations made while it was down come once, when it starts again', async () => {
		const poller = trigger();
		await poller.activate();
		const before = register(1);
		expect(ids((await poller.poll()).items)).toEqual(before);
		expect((await poller.poll()).items).toEqual([]);
		const whileDown = register(2);

		const atStart = await poller.restart();

		expect(ids(atStart)).toEqual(whileDown);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('a restart before any registration came still starts from the first activation, not from the restart', async () => {
		const poller = trigger();
		await poller.activate();
		const whileDown = register(1);

		expect(ids(await poller.restart())).toEqual(whileDown);
	});

	test('many registrations of the same moment come once each; the state keeps only what is made within reach of the newest', async () => {
		history(3000);
		const poller = trigger();
		await poller.activate();
		const sameMoment = register(1500);
		expect(ids((await poller.poll()).items)).toEqual(sameMoment);

		laterBy(10 * 60_000);
		const [next] = register(1);
		expect(ids((await poller.poll()).items)).toEqual([next]);
		laterBy(10 * 60_000);
		const [last] = register(1);
		expect(ids((await poller.poll()).items)).toEqual([last]);
		expect((await poller.poll()).items).toEqual([]);
		// Kept: what was made since the last emitting poll began, less the lateness allowed — not the 1,500 nor `next`.
		expect(Object.keys(poller.savedState.seen as object)).toEqual([last]);
	}, 30_000);

	test('with a form, only its registrations come, and its registrations are listed with the form', async () => {
		const poller = trigger({ formSlug: { __rl: true, mode: 'id', value: 'warranty-claim' } });
		await poller.activate();
		register(2);
		const claims = register(2, { form: 'warranty-claim' });

		expect(ids((await poller.poll()).items)).toEqual(claims);
		expect(listRequests().every((query) => query.formSlug === 'warranty-claim')).toBe(true);
	});

	test('Fetch Test Event emits the newest registration and changes nothing', async () => {
		const poller = trigger();
		await poller.activate();
		const [, newest] = register(2);

		expect(ids(await poller.fetchTestEvent())).toEqual([newest]);
		expect(ids((await poller.poll()).items)).toHaveLength(2);
	});

	test('a service that limits its rate slows a long poll down instead of failing it', async () => {
		const poller = trigger();
		await poller.activate();
		const burst = register(1000);
		sandbox().limitRate({ perSecond: 20, burst: 5, retryAfter: true });

		const { items, error } = await poller.poll();

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(burst);
		expect(sandbox().refusals!.refused).toBeGreaterThan(0);
	}, 20_000);
});

describe('Product Registration Poll Trigger, in the dialects the API page leaves open', () => {
	test('the API page reading (a bare array, no pages): the whole list in two requests a poll (with a limit and without: a default page is not taken for the list), only what is new comes', async () => {
		sandbox().dialect = { ...API_PAGE };
		register(30, { agoMs: HOUR });
		const poller = trigger();
		await poller.activate();
		const burst = register(15);
		sandbox().requests.length = 0;

		const { items } = await poller.poll();

		expect(ids(items)).toEqual(burst);
		expect(listRequests()).toHaveLength(2);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('regression: a bare array whose registrations carry no createdAt never brings the same ones out again', async () => {
		sandbox().dialect = { ...API_PAGE, createdAt: 'absent' };
		register(150);
		const poller = trigger();
		await poller.activate();

		for (let poll = 0; poll < 3; poll++) expect((await poller.poll()).items).toEqual([]);
		const arrivals = register(2);
		expect(ids((await poller.poll()).items).sort()).toEqual(arrivals);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('paged, the oldest first, with a total: each new registration once; a quiet poll reads the list whole, in windows of up to 100', async () => {
		// Only a list of the newest first shows at one end all that is new; any other is read whole.
		sandbox().dialect.order = 'oldestFirst';
		history(1000);
		const poller = trigger();
		await poller.activate();
		const arrivals = register(30);

		expect(ids((await poller.poll()).items)).toEqual(arrivals);
		sandbox().requests.length = 0;
		expect((await poller.poll()).items).toEqual([]);
		expect(listRequests().length).toBeLessThanOrEqual(13);
	});

	test('paged without a total, in no order, ids under regId as numbers, createdAt as epoch milliseconds: each once', async () => {
		Object.assign(sandbox().dialect, {
			shape: 'dataOnly',
			order: 'none',
			idKey: 'regId',
			numericIds: true,
			createdAt: 'epochMilliseconds',
		});
		history(120);
		const poller = trigger();
		await poller.activate();
		const arrivals = register(7);

		expect(ids((await poller.poll()).items).sort()).toEqual(numbered(arrivals).sort());
		expect((await poller.poll()).items).toEqual([]);
	});

	test('createdAt without a zone, to the second, registrationId keys: late and same-second registrations each once', async () => {
		Object.assign(sandbox().dialect, { idKey: 'registrationId', createdAt: 'noZone' });
		const poller = trigger();
		await poller.activate();
		const first = register(4);
		const late = register(1, { agoMs: 60_000 });

		expect(ids((await poller.poll()).items).sort()).toEqual([...first, ...late].sort());
		expect((await poller.poll()).items).toEqual([]);
	});

	test('a service that lists neither ids nor createdAt is refused at activation, not followed by guessing', async () => {
		sandbox().faultPlan = () => ({ status: 200, body: [{ productName: 'Kettle K1', customerEmail: 'a@example.com' }] });

		await expect(trigger().activate()).rejects.toThrow(
			'The service lists registrations with neither an ID nor createdAt, so the trigger cannot tell a new registration from one it has emitted',
		);
	});

	test(`a list without createdAt longer than ${MAX_REMEMBERED.toLocaleString('en-US')} is refused, not followed by guessing`, async () => {
		sandbox().dialect = { ...API_PAGE, createdAt: 'absent' };
		register(MAX_REMEMBERED + 1);

		await expect(trigger().activate()).rejects.toThrow(
			'The service lists registrations without createdAt, so the trigger remembers the ID of every registration it lists; this list holds more than 10,000',
		);
	}, 30_000);
});

/** A shop's history imported in `batches` of 10 registrations of one moment each, the last an hour ago, 7 hours apart. */
function importedHistory(batches: number): void {
	for (let batch = batches - 1; batch >= 0; batch--) register(10, { agoMs: HOUR + batch * 7 * HOUR });
}

/** Polls `times` times, ten minutes apart: the ids emitted, and how many came twice. */
async function pollsOf(poller: PollingTrigger, times: number) {
	const emitted: string[] = [];
	for (let poll = 0; poll < times; poll++) {
		const { items, error } = await poller.poll();
		expect(error).toBeUndefined();
		emitted.push(...ids(items));
		laterBy(10 * 60_000);
	}
	return { emitted: [...emitted].sort(), twice: emitted.length - new Set(emitted).size };
}

const NEWEST_FIRST = { options: { listOrder: 'newestFirst' } };

describe('Product Registration Poll Trigger, List Order', () => {
	test('Learn From the Answers: a history imported ten at one moment never shows its order, so a quiet poll reads the list whole', async () => {
		importedHistory(100);
		const poller = trigger();
		await poller.activate();
		sandbox().requests.length = 0;

		expect((await poller.poll()).items).toEqual([]);
		expect(listRequests().length).toBeGreaterThan(10);
	});

	test('Newest First over the same history: a quiet poll is one small request, and a burst of 250 comes once each', async () => {
		importedHistory(100);
		const poller = trigger(NEWEST_FIRST);
		await poller.activate();
		// The first poll reads back over the newest import, made within the lateness allowed of when the activation
		// began (as far as it can tell); from then on a quiet poll is one small request.
		laterBy(10 * 60_000);
		expect(await pollsOf(poller, 1)).toEqual({ emitted: [], twice: 0 });
		sandbox().requests.length = 0;
		expect((await poller.poll()).items).toEqual([]);
		expect(listRequests()).toHaveLength(1);

		laterBy(10 * 60_000);
		const burst = register(250);
		sandbox().requests.length = 0;
		const { emitted, twice } = await pollsOf(poller, 3);

		expect(twice).toBe(0);
		expect(emitted).toEqual([...burst].sort());
		// The burst's poll reads through it and into the history (at most 5 windows); the next, back over the burst
		// made within the lateness allowed (4); the last, one small request.
		expect(listRequests().length).toBeLessThanOrEqual(10);
	});

	test('Newest First stated for a service that lists the oldest first: its answers show otherwise, and nothing is lost', async () => {
		sandbox().dialect.order = 'oldestFirst';
		history(300);
		const poller = trigger(NEWEST_FIRST);
		await poller.activate();
		const arrivals = [...register(3)];
		laterBy(10 * 60_000);
		arrivals.push(...register(2));

		const { emitted, twice } = await pollsOf(poller, 3);

		expect(twice).toBe(0);
		expect(emitted).toEqual([...arrivals].sort());
	});

	test('List Order changed on an active workflow, and changed back: each poll goes on from the state, nothing lost or twice', async () => {
		importedHistory(30);
		const poller = trigger();
		await poller.activate();
		const made = register(4);
		const learning = await pollsOf(poller, 2);
		expect(await poller.edit(NEWEST_FIRST)).toEqual([]);
		made.push(...register(3));
		const stated = await pollsOf(poller, 2);
		expect(await poller.edit({ options: {} })).toEqual([]);
		made.push(...register(2));
		const learningAgain = await pollsOf(poller, 2);

		expect(learning.twice + stated.twice + learningAgain.twice).toBe(0);
		expect([...learning.emitted, ...stated.emitted, ...learningAgain.emitted].sort()).toEqual(made.sort());
		// The stated order is not remembered: back to learning it, a quiet poll reads the list whole again.
		sandbox().requests.length = 0;
		await poller.poll();
		expect(listRequests().length).toBeGreaterThan(3);
	});
});

describe('Product Registration Poll Trigger under n8n 2.x’s poll budget', () => {
	test('a burst that takes longer than a poll’s budget to read comes out over several polls, each registration once', async () => {
		history(500);
		const poller = trigger();
		await poller.activate();
		const burst = register(900);
		sandbox().latencyMs = 60;
		poller.budgetMs = 400;

		const emitted: string[] = [];
		let polls = 0;
		while (emitted.length < burst.length && polls < 20) {
			polls += 1;
			const { items, error } = await poller.poll();
			expect(error).toBeUndefined();
			emitted.push(...ids(items));
		}

		expect(polls).toBeGreaterThan(1);
		expect([...emitted].sort()).toEqual([...burst].sort());
		expect((await poller.poll()).items).toEqual([]);
	}, 30_000);

	/**
	 * Regression (review of List Order): an activation cut short after its first window, over a history of 200 made a
	 * minute apart and an import of 30 at one moment an hour ago, goes on at the next poll from where it stopped — or,
	 * where that registration is gone or has moved past the window, from the list's start, reading what was made since.
	 */
	async function activationCutShort(): Promise<PollingTrigger> {
		for (let made = 0; made < 200; made++) register(1, { agoMs: 2 * HOUR + (200 - made) * 60_000 });
		register(30, { agoMs: HOUR });
		const poller = trigger(NEWEST_FIRST);
		poller.budgetMs = 100;
		sandbox().latencyMs = 50;
		expect(await poller.activate()).toEqual([]);
		poller.budgetMs = undefined;
		sandbox().latencyMs = 0;
		expect(poller.savedState.started).toBeUndefined();
		laterBy(60_000);
		return poller;
	}

	test('regression: registrations made while an activation is cut short, more than its next window holds, come once', async () => {
		const poller = await activationCutShort();
		const burst = register(12);

		const { emitted, twice } = await pollsOf(poller, 3);

		expect(twice).toBe(0);
		expect(emitted).toEqual(burst);
	});

	test('regression: a registration made while the one an activation stopped at is deleted comes once', async () => {
		const poller = await activationCutShort();
		const stoppedAt = (poller.savedState.goOn as { after: string } | undefined)?.after;
		// Where the activation read a single window of one moment, it goes on from the list's start: one it read goes.
		sandbox().state.deleteRegistration(stoppedAt ?? sandbox().state.matchingRegistrations({})[0].id);
		const made = register(1);

		const { emitted, twice } = await pollsOf(poller, 3);

		expect(twice).toBe(0);
		expect(emitted).toEqual(made);
	});
});
