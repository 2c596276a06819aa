import { PollingTrigger } from '../../harness/pollingTrigger';
import { useSandbox } from '../../harness/sandbox';
import { IDS_AT_MARK_KEPT } from '../../nodes/ProductRegistrationPollTrigger/newRegistrations';

/**
 * The poll trigger as n8n runs an active workflow's poller (n8n-core's PollContext, static data saved after the
 * activation and with each poll that emits), against the sandbox on real sockets: every registration comes out in
 * exactly one poll, whatever arrives, shifts, fails or restarts in between.
 */

const { sandbox, credentials } = useSandbox();

let registered = 0;
/** Registers `count` products for new customers, in one request as a busy form would see them, the oldest first. */
function register(count: number, form?: string): string[] {
	const { registrations } = sandbox().state.createRegistrations(
		Array.from({ length: count }, () => {
			registered += 1;
			return {
				productName: 'Kettle K1',
				customerEmail: `buyer${registered}@example.com`,
				'where-did-you-buy-it': 'Online',
				...(form ? { type: form } : {}),
			};
		}),
	);
	return registrations.map((registration) => registration.id);
}

const trigger = (parameters = {}) => new PollingTrigger({ event: 'newRegistration', ...parameters }, credentials());
const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
const listRequests = () =>
	sandbox()
		.requestsTo('GET', '/api/registrations')
		.map((request) => request.query);

beforeEach(() => {
	registered = 0;
});

describe('Product Registration Poll Trigger', () => {
	test('the first activation emits nothing and starts from now, with one small request', async () => {
		register(5);
		const poller = trigger();

		expect(await poller.activate()).toEqual([]);
		expect(listRequests()).toEqual([{ page: '1', limit: '10' }]);
		sandbox().requests.length = 0;

		expect(await poller.poll()).toEqual({ items: [] });
		expect(listRequests()).toEqual([{ page: '1', limit: '10' }]);
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

	test('a burst of 250 between two polls comes in one poll, each once, the oldest first, read only as far as the registrations seen', async () => {
		register(1000);
		const poller = trigger();
		await poller.activate();
		const burst = register(250);
		sandbox().requests.length = 0;

		const { items } = await poller.poll();

		expect(ids(items)).toEqual(burst);
		expect(listRequests()).toEqual([
			{ page: '1', limit: '10' },
			{ page: '1', limit: '100' },
			{ page: '2', limit: '100' },
			{ page: '3', limit: '100' },
		]);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('registrations that arrive while a poll reads its pages come in the next poll, none twice', async () => {
		const poller = trigger();
		await poller.activate();
		const burst = register(150);
		let late: string[] = [];
		sandbox().faultPlan = (request) => {
			if (request.query.page === '2' && late.length === 0) late = register(2);
			return undefined;
		};

		const first = await poller.poll();
		const second = await poller.poll();

		expect(ids(first.items)).toEqual(burst);
		expect(ids(second.items)).toEqual(late);
	});

	test('pages of 100 that leave out the newest registrations miss nothing: the first, small page shows them', async () => {
		const poller = trigger();
		await poller.activate();
		sandbox().pageQuirks.largePagesMissNewest = 3;
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

	test('registrations made in the same millisecond as the newest one seen, beyond the IDs it keeps, are not emitted again', async () => {
		const poller = trigger();
		await poller.activate();
		const now = new Date().toISOString();
		const burst = register(IDS_AT_MARK_KEPT);
		for (const id of burst) sandbox().state.registrations.get(id)!.createdAt = now;

		expect((await poller.poll()).items).toHaveLength(IDS_AT_MARK_KEPT);
		const [next] = register(1);
		expect(ids((await poller.poll()).items)).toEqual([next]);
		// The state stays bounded: at most the IDs kept at the mark.
		expect(JSON.stringify(poller.savedState).length).toBeLessThan(20 * IDS_AT_MARK_KEPT);
	}, 20_000);

	test('with a form, only its registrations come, and its registrations are listed with the form', async () => {
		const poller = trigger({ formSlug: { __rl: true, mode: 'id', value: 'warranty-claim' } });
		await poller.activate();
		register(2);
		const claims = register(2, 'warranty-claim');

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

	test('a service of the API document (a bare array, no pages): the whole list is read, and only what is new comes', async () => {
		sandbox().listDialect = 'bare';
		register(30);
		const poller = trigger();
		await poller.activate();
		const burst = register(15);

		const { items } = await poller.poll();

		expect(ids(items)).toEqual(burst);
		expect((await poller.poll()).items).toEqual([]);
	});

	test('a bare array in an order the API document does not promise (here the oldest first): activation emits nothing, each new registration comes once, Fetch Test Event gives the newest', async () => {
		sandbox().listDialect = 'bare';
		sandbox().pageQuirks.oldestFirst = true;
		register(30);
		const poller = trigger();
		await poller.activate();

		expect((await poller.poll()).items).toEqual([]);
		const arrivals = register(3);
		// Registered in one request, they share a moment: in a list of no promised order, no order among them either.
		expect(ids((await poller.poll()).items).sort()).toEqual(arrivals);
		expect((await poller.poll()).items).toEqual([]);
		expect(arrivals).toContain(ids(await poller.fetchTestEvent())[0]);
	});

	test('a service that limits its rate slows a long poll down instead of failing it', async () => {
		const poller = trigger();
		await poller.activate();
		const burst = register(1000);
		sandbox().limitRate({ perSecond: 20, burst: 5, retryAfter: true });

		const { items, error } = await poller.poll();

		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(burst);
		expect(sandbox().rateLimit!.refused).toBeGreaterThan(0);
	}, 20_000);
});
