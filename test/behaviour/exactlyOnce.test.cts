import fc from 'fast-check';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PollingTrigger } from '../../harness/pollingTrigger.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { ORDER_EVIDENCE } from '../../nodes/ProductRegistrationPollTrigger/newRegistrations';
import { LISTED_LATE_WITHIN_MS } from '../../nodes/ProductRegistrationPollTrigger/pollState';
import type { ListDialect } from '../../sandbox/lists.cts';
import { LARGEST_PAGE, MIN_PAGE_SIZE, WINDOW } from '../../nodes/shared/transport/lists/listRequest';
import { listAnswer, REAL_SERVICE } from '../../sandbox/lists.cts';
import type { Sandbox } from '../../sandbox/service.cts';
import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';

/**
 * Exactly once, whatever the service's dialect: a model-based property suite (fast-check) over generated readings of
 * the API page — list shape, paging, limit, order, the id's key, `createdAt`'s form — and generated sequences of what
 * happens to a shop: registrations made (some listed late), deleted, time passing, refusals, n8n restarting; and of
 * what the node does meanwhile: Get Many, imports with If Already Registered, the Poll Trigger's polls, with
 * registrations added and deleted while it reads. After every step and at the end, the invariants:
 * 1. Get Many with Return All gives every registration that existed for the whole read exactly once, or says it could
 *    not (an error, or a hint the user sees): never silently short, never twice.
 * 2. Skip and Update never create a registration that existed before the run (and was not deleted meanwhile); a new
 *    row is created at most once, and each row not created says why (an error item), never guesses.
 * 3. The Poll Trigger emits nothing that existed before its activation, never anything twice, and — once polls run
 *    undisturbed — every registration made after its activation that still exists, once.
 * A failure prints the seed and path that replay it (PROPERTY_SEED and PROPERTY_PATH pick them).
 */

const { sandbox, credentials } = useSandbox();

const SEED = Number(process.env.PROPERTY_SEED ?? 20261125);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What the suite ran, for docs/measured/reliability.md. */
const tally = {
	combinations: 0,
	realService: 0,
	tiesReordered: 0,
	versions: new Map<number, number>(),
	statedOrder: 0,
	commands: 0,
	byCommand: new Map<string, number>(),
	dialects: new Set<string>(),
	excuses: new Map<string, number>(),
};

const readings: fc.Arbitrary<ListDialect> = fc.record({
	shape: fc.constantFrom('bare', 'dataTotal', 'dataMetaTotal', 'dataOnly'),
	pages: fc.constantFrom('honoured', 'honoured', 'ignored'),
	limit: fc.constantFrom('honoured', 'capped', 'capped', 'ignored'),
	cap: fc.constantFrom(20, 50, 100),
	defaultPageSize: fc.constantFrom(20, 25),
	order: fc.constantFrom('newestFirst', 'newestFirst', 'oldestFirst', 'none'),
	idKey: fc.constantFrom('id', 'regId', 'registrationId'),
	numericIds: fc.boolean(),
	createdAt: fc.constantFrom('isoMilliseconds', 'isoSeconds', 'noZone', 'epochMilliseconds', 'absent'),
	largePagesMissNewest: fc.constantFrom(0, 0, 0, 2),
	bareDefaultPage: fc.boolean(),
	ties: fc.constantFrom('stable', 'reordered'),
});
/**
 * The readings to hold the node to. The real service's quirk of leaving the newest out of large pages is played only
 * as it was seen: newest first, in pages (honoured) with a total (elsewhere no client could see what is left out). A bare array
 * that gives a default page without `limit` is played only where `limit` is honoured: cut or ignored too, every
 * answer is at most a page, and nothing tells the list's end.
 */
const otherReadings = readings.map((dialect) => ({
	...dialect,
	largePagesMissNewest:
		dialect.order === 'newestFirst' && dialect.pages === 'honoured' && dialect.shape !== 'bare' && dialect.shape !== 'dataOnly'
			? dialect.largePagesMissNewest
			: 0,
	bareDefaultPage: dialect.bareDefaultPage && dialect.shape === 'bare' && dialect.limit === 'honoured',
	// Registrations of one moment are ordered anew only in a list sorted by the `createdAt` it shows.
	ties: dialect.order !== 'none' && dialect.createdAt !== 'absent' ? dialect.ties : 'stable',
}));
/**
 * The real service as its notes describe it, with its reported quirk (pages of 100 leave out its 2 newest) in half,
 * and registrations of one moment ordered anew at each request in half.
 */
const realService: fc.Arbitrary<ListDialect> = fc
	.record({ largePagesMissNewest: fc.constantFrom(0, 2), ties: fc.constantFrom('stable' as const, 'reordered' as const) })
	.map((quirks) => ({ ...REAL_SERVICE, ...quirks }));
/** The real service's dialect a third of the time; any other reading the API page leaves open otherwise. */
const dialectArbitrary = fc.oneof({ arbitrary: realService, weight: 1 }, { arbitrary: otherReadings, weight: 2 });
/** Whether a drawn dialect is the real service's, with its quirk or without. */
const isRealService = (dialect: ListDialect) =>
	(Object.keys(REAL_SERVICE) as Array<keyof ListDialect>).every(
		(key) => key === 'largePagesMissNewest' || key === 'ties' || dialect[key] === REAL_SERVICE[key],
	);
/** How far the answers' `Date` header is ahead of createdAt's clock: the same clock half the time, else up to 5 minutes apart. */
const dateHeaderAheadArbitrary = fc.oneof(fc.constant(0), fc.integer({ min: -5 * MINUTE, max: 5 * MINUTE }));

/**
 * The most records one answer of this dialect can hold, where no client can read further: a service that ignores
 * `page` and does not give as many as asked (it cuts `limit`, or ignores it) shows only its first answer. Infinity
 * where a client can reach every record (pages honoured; or `limit` honoured, so one answer holds all; or a bare
 * array, which without `limit` is every match).
 */
function oneAnswerAtMost(dialect: ListDialect): number {
	if (dialect.shape === 'bare' || dialect.pages === 'honoured' || dialect.limit === 'honoured') return Infinity;
	return dialect.limit === 'capped' ? dialect.cap : dialect.defaultPageSize;
}

/**
 * Whether what one answer shows may be all a client can read of a list of `size`: beyond one answer where pages
 * cannot be read; or, where pages cannot be read and no total is given, an answer that may have been cut (MIN_PAGE_SIZE
 * to PAGE_SIZE records: nothing tells it from the list's end, a service that cuts `limit` cutting it to a page).
 */
function onlyFirstAnswer(dialect: ListDialect, size: number): boolean {
	const unpaged = dialect.shape !== 'bare' && dialect.pages === 'ignored';
	const mayHaveBeenCut = unpaged && dialect.shape === 'dataOnly' && size >= MIN_PAGE_SIZE && size <= LARGEST_PAGE;
	return mayHaveBeenCut || size > oneAnswerAtMost(dialect);
}

/**
 * Whether no client could be sure it read a list of `size` whole: only its first answer can be read, or pages of a size
 * the service fixes whatever `limit` asks cannot overlap, so a deletion while they are read can hide a record.
 */
function noClientCanReadWhole(dialect: ListDialect, size: number): boolean {
	const fixedPages = dialect.shape !== 'bare' && dialect.limit === 'ignored' && size > dialect.defaultPageSize;
	return fixedPages || onlyFirstAnswer(dialect, size);
}

/**
 * The registrations in a run of one moment (as the client is shown `createdAt`, one after another in the list) that no
 * window of at most WINDOW records (or the service's cap) — `(page − 1) × limit` on — can hold together with the record
 * either side of it, or the list's start or end; where the service gives pages of its own size whatever is asked, a run
 * that one page does not hold. Where the service may order those anew at each request, no client can be sure it read
 * them all, and a client that follows the stated rules must say so even where it does not. Gives their ids, and the
 * moments (as listed) of those runs, for registrations of them deleted since.
 */
function inUnholdableRuns(dialect: ListDialect, pageSeen = Infinity): Set<unknown> {
	const unsure = new Set<unknown>();
	const asListed = { ...dialect, shape: 'bare', limit: 'honoured', pages: 'ignored', largePagesMissNewest: 0 } as const;
	const all = listAnswer(sandbox().state.matchingRegistrations({}), { limit: '1000000' }, { ...asListed, ties: 'stable' });
	const records = all as IDataObject[];
	const most = Math.min(dialect.limit === 'capped' ? dialect.cap : Infinity, WINDOW, pageSeen);
	const fixed = dialect.limit === 'ignored' ? dialect.defaultPageSize : undefined;
	const holds = (from: number, to: number) =>
		fixed !== undefined
			? Math.floor(from / fixed) === Math.floor(to / fixed)
			: Array.from({ length: most }, (_, index) => index + 1).some((limit) => (Math.floor(from / limit) + 1) * limit > to);
	for (let start = 0, end = 1; start < records.length; start = end, end = start + 1) {
		const moment = records[start].createdAt;
		while (end < records.length && moment !== undefined && records[end].createdAt === moment) end += 1;
		// Held with the record either side, or, in pages of the service's own size, alone.
		const [from, to] = fixed !== undefined ? [start, end - 1] : [Math.max(0, start - 1), end === records.length ? end - 1 : end];
		if (end - start > 1 && !holds(from, to)) {
			unsure.add(moment);
			for (const record of records.slice(start, end)) unsure.add(storedId(record));
		}
	}
	return unsure;
}

/**
 * Runs in `runs` (by moment and by registration) that no window could hold at some list request `read` made: where a
 * run stands when it is read decides whether a window holds it.
 */
async function watchingRuns<T>(runs: Set<unknown>, read: () => Promise<T>): Promise<T> {
	// Without a total, a first page of MIN_PAGE_SIZE to WINDOW - 1 may be all the service gives a page: no client knows.
	let pageSeen = Infinity;
	sandbox().onListed = (query, matches) => {
		const answered = Math.min(matches, Number(query.limit ?? Infinity));
		const firstPage = (query.page ?? '1') === '1' && sandbox().dialect.shape === 'dataOnly';
		if (firstPage && answered >= MIN_PAGE_SIZE && answered < WINDOW) pageSeen = Math.min(pageSeen, answered);
		inUnholdableRuns(sandbox().dialect, pageSeen).forEach((run) => runs.add(run));
	};
	try {
		return await read();
	} finally {
		sandbox().onListed = undefined;
	}
}

/** A poll of the trigger, the runs no window could hold while it read kept with the shop's. */
async function watchingPoll<T>(shop: Shop, read: () => Promise<T>): Promise<T> {
	shop.lastPollRuns = new Set();
	const result = await watchingRuns(shop.lastPollRuns, read);
	shop.lastPollRuns.forEach((run) => shop.unholdable.add(run));
	return result;
}

/** Registrations of a run no window could hold, which the service orders anew at each request: none can be sure of them. */
const unsureOf = (shop: Shop) => (sandbox().dialect.ties === 'reordered' ? shop.unholdable : new Set<unknown>());

/**
 * Whether registrations may be deleted while the node reads. Not where pages cannot overlap (the service ignores
 * `limit` and pages): there a deletion can hide a registration from the Poll Trigger and nothing the service answers
 * tells — the one case the trigger cannot hold, which it says in n8n's log and the README says.
 */
const deletionsWhileReading = (dialect: ListDialect) => dialect.limit !== 'ignored' || dialect.shape === 'bare';

/** The id a registration is stored under, from how the dialect lists it (`R000123`, `123` under `regId`, ...). */
function storedId(json: IDataObject): string {
	const id = json.id ?? json.regId ?? json.registrationId;
	return typeof id === 'number' ? `R${String(id).padStart(6, '0')}` : String(id);
}

/** What happened to the shop, as the suite knows it. */
interface Shop {
	/**
	 * Set when the trigger failed a poll where no client could have followed the list (an owed registration lies beyond
	 * what the service shows): nothing more is owed.
	 */
	triggerRefused?: string;
	existedAtActivation: Set<string>;
	/** Whether the user states the list is the newest first (List Order), as it is: no answer need show it. */
	statesNewestFirst: boolean;
	/** Whether its Poll Trigger learns the order from the answers (version 1's Learn From the Answers). */
	learnsOrder: boolean;
	/** The trigger's last poll that read the list whole or to where it needs, as the trigger holds it. */
	held?: PollHeld;
	/** The same, as n8n last saved it: after an activation, and with each poll that emits. */
	saved?: PollHeld;
	madeAfterActivation: Set<string>;
	/** Runs no window could hold at a list request of the Poll Trigger (watchingRuns), and of its latest poll. */
	unholdable: Set<unknown>;
	lastPollRuns?: Set<unknown>;
	deleted: Set<string>;
	/** How many times each registration came out of the Poll Trigger. */
	emitted: Map<string, number>;
	customers: number;
}

interface World {
	sandbox: Sandbox;
	poller: PollingTrigger;
}

/** Something that happens to the shop while the node reads a list: run at the node's second list request. */
type Meanwhile = { arrivals: number; deletions: number };

function register(shop: Shop, count: number, options: { lateByMs?: number; form?: string } = {}): string[] {
	const state = sandbox().state;
	if (count === 0) return [];
	const createdAt =
		options.lateByMs === undefined ? undefined : new Date(state.now().getTime() - options.lateByMs).toISOString();
	const { registrations } = state.createRegistrations(
		Array.from({ length: count }, () => {
			shop.customers += 1;
			return {
				productName: `Kettle K${shop.customers % 4}`,
				customerEmail: `customer${shop.customers}@example.com`,
				...(options.form ? { type: options.form } : {}),
			};
		}),
		createdAt,
	);
	const ids = registrations.map((registration) => registration.id);
	for (const id of ids) shop.madeAfterActivation.add(id);
	return ids;
}

function remove(shop: Shop, count: number, pick: number): string[] {
	const existing = [...sandbox().state.registrations.keys()];
	const removed: string[] = [];
	for (let index = 0; index < count && existing.length > 0; index++) {
		const [id] = existing.splice((pick + index * 7) % existing.length, 1);
		sandbox().state.deleteRegistration(id);
		shop.deleted.add(id);
		removed.push(id);
	}
	return removed;
}

/** Makes `meanwhile` happen at the node's second list request; returns what it made and deleted, once run. */
function whileReading(
	shop: Shop,
	meanwhile: Meanwhile | undefined,
	pick: number,
): { made: string[]; deleted: string[] } {
	const happened = { made: [] as string[], deleted: [] as string[] };
	if (meanwhile === undefined) return happened;
	let lists = 0;
	sandbox().faultPlan = (request) => {
		if (request.method === 'GET' && request.path === '/api/registrations' && ++lists === 2) {
			if (deletionsWhileReading(sandbox().dialect)) happened.deleted.push(...remove(shop, meanwhile.deletions, pick));
			happened.made.push(...register(shop, meanwhile.arrivals));
		}
		return undefined;
	};
	return happened;
}

/**
 * A poll that read the list whole or to where it needs: when it began by the service's clock, and the newest
 * registration listed by then (its `createdAt`, and when a poll first listed it).
 */
interface PollHeld {
	polledAt: number;
	newestAt: number;
	newestShownAt: number;
}

/** The trigger read the list to where it needs in a poll begun at `polledAt`; n8n saves that where `saved`. */
function pollCompleted(shop: Shop, polledAt: number, saved: boolean): void {
	const times = sandbox().state.matchingRegistrations({}).map((registration) => Date.parse(registration.createdAt));
	const newestAt = Math.max(...times, -Infinity);
	const held = shop.held;
	shop.held =
		held !== undefined && held.newestAt >= newestAt
			? { ...held, polledAt }
			: { polledAt, newestAt, newestShownAt: polledAt };
	if (saved) shop.saved = shop.held;
}

/**
 * When the last poll the trigger holds began, as far as a client can tell: createdAt's clock need not be the `Date`
 * header's (minutes apart, or its zone unnamed), so no earlier than the newest registration listed by then, plus the
 * time since a poll first listed it (to the `Date`'s second).
 */
function knownPollStart(held: PollHeld | undefined): number {
	if (held === undefined) return Infinity;
	return Math.min(held.polledAt, held.newestAt + held.polledAt - held.newestShownAt - 1000);
}

function emittedBy(shop: Shop, items: INodeExecutionData[]): void {
	for (const item of items) {
		const id = storedId(item.json);
		// One of a run no window holds, which the service orders anew, may be unseen at the activation: none can tell it.
		const unsure = unsureOf(shop).has(id) || unsureOf(shop).has(item.json.createdAt);
		if (shop.existedAtActivation.has(id) && unsure) excused('the Poll Trigger emitted one of a run no window holds, unseen at its activation');
		else if (shop.existedAtActivation.has(id)) throw new Error(`The Poll Trigger emitted ${id}, made before its activation`);
		const times = (shop.emitted.get(id) ?? 0) + 1;
		if (times > 1) throw new Error(`The Poll Trigger emitted ${id} twice`);
		shop.emitted.set(id, times);
	}
}

const meanwhileArbitrary: fc.Arbitrary<Meanwhile | undefined> = fc.option(
	fc.record({ arrivals: fc.integer({ min: 0, max: 30 }), deletions: fc.integer({ min: 0, max: 6 }) }),
	{ freq: 2, nil: undefined },
);

type ShopCommand = fc.AsyncCommand<Shop, World>;

const commandArbitraries: Array<fc.Arbitrary<ShopCommand>> = [
	fc
		.record({
			count: fc.integer({ min: 1, max: 100 }),
			lateBy: fc.option(fc.integer({ min: 0, max: LISTED_LATE_WITHIN_MS - 30_000 }), { nil: undefined }),
		})
		.map(({ count, lateBy }) =>
			command(`register ${count}${lateBy === undefined ? '' : `, listed ${lateBy} ms late`}`, async (shop) => {
				register(shop, count, { lateByMs: lateBy });
			}),
		),
	fc.record({ count: fc.integer({ min: 1, max: 8 }), pick: fc.nat() }).map(({ count, pick }) =>
		command(`delete ${count}`, async (shop) => {
			remove(shop, count, pick);
		}),
	),
	fc.integer({ min: 0, max: 15 * MINUTE }).map((ms) =>
		command(`wait ${Math.round(ms / 1000)} s`, async () => {
			sandbox().state.clockAheadMs += ms;
		}),
	),
	fc
		.record({ meanwhile: meanwhileArbitrary, pick: fc.nat() })
		.map(({ meanwhile, pick }) =>
			command(
				`get many${describe(meanwhile)}`,
				async (shop, _world, faultServed) => await getMany(shop, meanwhile, pick, faultServed),
			),
		),
	fc
		.record({
			mode: fc.constantFrom('skip', 'update'),
			existing: fc.integer({ min: 0, max: 60 }),
			fresh: fc.integer({ min: 0, max: 60 }),
			meanwhile: meanwhileArbitrary,
			pick: fc.nat(),
		})
		.map(({ mode, existing, fresh, meanwhile, pick }) =>
			command(
				`import ${existing} registered and ${fresh} new rows with ${mode}${describe(meanwhile)}`,
				async (shop, _world, faultServed) => importRows(shop, mode, existing, fresh, meanwhile, pick, faultServed),
			),
		),
	fc
		.record({
			meanwhile: meanwhileArbitrary,
			pick: fc.nat(),
			budget: fc.option(fc.constantFrom(20, 60), { nil: undefined }),
		})
		.map(({ meanwhile, pick, budget }) =>
			command(
				`poll${budget === undefined ? '' : ` with a ${budget} ms budget`}${describe(meanwhile)}`,
				async (shop, world, faultServed) => {
					whileReading(shop, meanwhile, pick);
					world.poller.budgetMs = budget;
					if (budget !== undefined) sandbox().latencyMs = 5;
					const polledAt = sandbox().state.now().getTime();
					const { items, error } = await watchingPoll(shop, () => world.poller.poll());
					sandbox().latencyMs = 0;
					if (error !== undefined) pollFailed(shop, error, faultServed());
					else if (budget === undefined) pollCompleted(shop, polledAt, items.length > 0);
					else if (items.length > 0) shop.saved = shop.held;
					emittedBy(shop, items);
				},
			),
		),
	fc.constant(
		command('n8n restarts', async (shop, world, faultServed) => {
			world.poller.budgetMs = undefined;
			// What was not saved is gone.
			shop.held = shop.saved;
			try {
				const polledAt = sandbox().state.now().getTime();
				const items = await watchingPoll(shop, () => world.poller.restart());
				pollCompleted(shop, polledAt, true);
				emittedBy(shop, items);
			} catch (error) {
				// An activation that fails is shown in n8n, which tries again; the state saved stays as it was.
				pollFailed(shop, error as Error, faultServed());
			}
		}),
	),
	fc.constantFrom('500', '429 Retry-After: 0').map((refusal) =>
		command(`refuse the next list request: ${refusal}`, async () => {
			sandbox().faultQueue.push(
				refusal === '500'
					? { status: 500, body: { message: 'Internal error' } }
					: { status: 429, headers: { 'retry-after': '0' }, body: { message: 'Too many requests' } },
			);
		}),
	),
];

function describe(meanwhile: Meanwhile | undefined): string {
	return meanwhile === undefined ? '' : `, while ${meanwhile.arrivals} arrive and ${meanwhile.deletions} are deleted`;
}

/**
 * A step of the model. A refusal queued by one step is served to the next request the node sends, in whichever later
 * step that is; `faultServed` says whether one was served during the step (the service failed: an error is owed).
 */
function command(name: string, run: (shop: Shop, world: World, faultServed: () => boolean) => Promise<void>): ShopCommand {
	return {
		check: () => true,
		run: async (shop, world) => {
			tally.commands += 1;
			const kind = name.split(/ \d| with|,|:/)[0];
			tally.byCommand.set(kind, (tally.byCommand.get(kind) ?? 0) + 1);
			const queued = sandbox().faultQueue.length;
			try {
				await run(shop, world, () => sandbox().faultQueue.length < queued);
			} finally {
				sandbox().faultPlan = undefined;
			}
		},
		toString: () => name,
	};
}

/** Counts an excuse the oracle accepted, by kind, for docs/measured/reliability.md. */
function excused(kind: string): void {
	tally.excuses.set(kind, (tally.excuses.get(kind) ?? 0) + 1);
}

/** Invariant 1. */
async function getMany(
	shop: Shop,
	meanwhile: Meanwhile | undefined,
	pick: number,
	faultServed: () => boolean,
): Promise<void> {
	const before = new Set(sandbox().state.registrations.keys());
	const happened = whileReading(shop, meanwhile, pick);
	const unholdable = new Set<unknown>();
	const result = await watchingRuns(unholdable, () =>
		runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true, options: { retryDelay: 1 } },
			credentials: credentials(),
		}),
	);
	const listed = result.items.map((item) => storedId(item.json));
	if (new Set(listed).size !== listed.length) throw new Error('Get Many gave a registration twice');
	if (result.error !== undefined) {
		if (!faultServed()) throw new Error(`Get Many failed though the service did not: ${result.error.message}`);
		return excused('Get Many failed with the service');
	}
	if (result.hints.length > 0) {
		// The list's sizes while it was read: before, with what was made, and after what was deleted too.
		const sizes = [before.size, before.size + happened.made.length, sandbox().state.registrations.size];
		if (unholdable.size > 0)
			return excused('Get Many said the list may be incomplete, where no window can hold a run of one moment');
		if (!sizes.some((size) => noClientCanReadWhole(sandbox().dialect, size)))
			throw new Error(`Get Many said the list may be incomplete, though a client can read it whole: ${JSON.stringify(result.hints[0])}`);
		return excused('Get Many said the list may be incomplete, where no client can read it whole');
	}
	const missing = [...before].filter((id) => !happened.deleted.includes(id) && !listed.includes(id));
	if (missing.length > 0)
		throw new Error(
			`Get Many left out ${missing.length} registrations that existed all along (${missing.slice(0, 3)}) and said nothing`,
		);
}

/** The matching rule of If Already Registered, for the sandbox's registrations: e-mail and product name. */
const sameKey = (email?: string, product?: string) => `${email?.toLowerCase()}|${product?.trim().toLowerCase()}`;

/** Invariant 2. */
async function importRows(
	shop: Shop,
	mode: string,
	existingRows: number,
	freshRows: number,
	meanwhile: Meanwhile | undefined,
	pick: number,
	faultServed: () => boolean,
): Promise<void> {
	const before = new Map(
		[...sandbox().state.registrations.values()].map((registration) => [
			registration.id,
			sameKey(registration.customerEmail, registration.productName),
		]),
	);
	const registered = [...before.values()];
	const rows: IDataObject[] = [];
	for (let index = 0; index < existingRows && registered.length > 0; index++) {
		const [email, product] = registered[(pick + index * 13) % registered.length].split('|');
		rows.push({ Email: email, Product: product });
	}
	for (let index = 0; index < freshRows; index++) {
		// New products for new customers and for customers the service knows; a few repeated in the sheet.
		const email =
			index % 3 === 0 && registered.length > 0
				? registered[index % registered.length].split('|')[0]
				: `new${pick}-${index % 40}@example.com`;
		rows.push({ Email: email, Product: `Toaster T${pick % 97}-${index % 40}` });
	}
	const happened = whileReading(shop, meanwhile, pick);
	const result = await runNode({
		parameters: {
			resource: 'registration',
			operation: 'create',
			dataMode: 'autoMapInputData',
			options: { ifExists: mode, retryDelay: 1 },
		},
		credentials: credentials(),
		items: rows.map((json) => ({ json })),
		continueOnFail: true,
	});
	const stillThere = new Set([...before].filter(([id]) => !happened.deleted.includes(id)).map(([, key]) => key));
	const created = [...sandbox().state.registrations.values()].filter(
		(registration) => !before.has(registration.id) && !happened.made.includes(registration.id),
	);
	for (const registration of created) {
		shop.madeAfterActivation.add(registration.id);
		const key = sameKey(registration.customerEmail, registration.productName);
		if (stillThere.has(key)) throw new Error(`${mode} created ${key} again, though the service held it before the run`);
	}
	const createdKeys = created.map((registration) => sameKey(registration.customerEmail, registration.productName));
	if (new Set(createdKeys).size !== createdKeys.length) throw new Error(`${mode} created a new row twice`);
	// A row may fail only where the service failed, where its registration was deleted while the node worked (an update
	// then finds none), or where no client could read its customer's registrations whole.
	const deletedKeys = new Set([...before].filter(([id]) => happened.deleted.includes(id)).map(([, key]) => key));
	const listSizes = new Map<string, number>();
	for (const key of before.values()) {
		const email = key.split('|')[0];
		listSizes.set(email, (listSizes.get(email) ?? 0) + 1);
	}
	const rowsMayFail =
		faultServed() || [...listSizes.values()].some((size) => noClientCanReadWhole(sandbox().dialect, size + rows.length));
	result.items.forEach((item, index) => {
		const outcome = item.json.outcome;
		if (outcome === undefined && typeof item.json.error !== 'string')
			throw new Error(`Item ${index} came out with neither an outcome nor an error`);
		const key = sameKey(String(rows[index].Email), String(rows[index].Product));
		if (outcome === undefined && deletedKeys.has(key)) excused('a row failed, its registration deleted while the node worked');
		else if (outcome === undefined) {
			if (!rowsMayFail) throw new Error(`Item ${index} failed though the service did not: ${String(item.json.error)}`);
			excused(faultServed() ? 'a row failed with the service' : 'a row failed where no client can read its list whole');
		}
		if (outcome === 'created' && !createdKeys.includes(key) && !stillThere.has(key))
			throw new Error(`Item ${index} says created, but the service holds no such registration`);
	});
	if (result.items.length !== rows.length) throw new Error('An input item did not come out');
}

/**
 * A poll (or an activation) failed. It may where the service failed during it (the next poll catches up), or where no
 * client could follow the list: the service shows one answer of it and no more, and what is new may lie beyond it —
 * always, unless the list is the newest first and the client knows it (the user states it, or keeps version 1.1's
 * Newest First; or, learning the order, that answer shows it, ORDER_EVIDENCE registrations in a row, each made before
 * the one listed before it: no client can tell the order from less), that answer holds every registration owed, and reaches back to one made more than the lateness allowed before
 * the last poll, as far as a client can tell when that was (below it, nothing can be new), or holds the whole list and
 * says so by its total. Then nothing more is owed.
 * Decided from the dialect and the shop, never from the node's words.
 */
function pollFailed(shop: Shop, error: Error, faultServed: boolean): void {
	if (faultServed) return excused('a poll failed with the service');
	if (shop.triggerRefused !== undefined) return;
	const dialect = sandbox().dialect;
	const matches = sandbox().state.matchingRegistrations({});
	// What a client is shown at most: the answer to the largest limit (the service gives no more, whatever is asked).
	const answer = listAnswer(matches, { limit: '1000000' }, dialect);
	const records = (Array.isArray(answer) ? answer : (answer as { data: unknown[] }).data) as IDataObject[];
	const shown = new Set(records.map(storedId));
	const owed = [...shop.madeAfterActivation].filter((id) => !shop.deleted.has(id) && !shop.emitted.has(id));
	const madeAt = (record: IDataObject) => Date.parse(sandbox().state.registrations.get(storedId(record))?.createdAt ?? '');
	const since = knownPollStart(shop.held) - LISTED_LATE_WITHIN_MS;
	// Where the answer holds the whole list, a client knows it only by a total.
	const whole = records.length === matches.length && dialect.shape !== 'dataOnly' && dialect.shape !== 'bare';
	const reachesBack = whole || records.some((record) => madeAt(record) < since);
	// Without createdAt, nothing shown tells which of a list's registrations a client may leave unread.
	const orderKnown = listsCreatedAt(records) && (shop.statesNewestFirst || (shop.learnsOrder && showsNewestFirst(records)));
	const followable =
		dialect.order === 'newestFirst' && orderKnown && reachesBack && owed.every((id) => shown.has(id));
	// A run no window could hold while the poll read, which the service orders anew: no client can be sure of the list.
	const unholdable = dialect.ties === 'reordered' && (shop.lastPollRuns?.size ?? 0) > 0;
	if (!unholdable && (!onlyFirstAnswer(dialect, matches.length) || followable))
		throw new Error(`A poll failed though a client could follow the list: ${error.message}`);
	excused('the Poll Trigger refused a list no client can follow');
	shop.triggerRefused = error.message;
}

const listsCreatedAt = (records: IDataObject[]) =>
	records.every((record) => 'createdAt' in record && record.createdAt !== undefined);

/** Whether ORDER_EVIDENCE registrations in a row are each made before the one listed before it. */
function showsNewestFirst(records: IDataObject[]): boolean {
	if (!listsCreatedAt(records)) return false;
	// As the client is shown them: a dialect that writes `createdAt` to the second shows one moment for a second's.
	const times = records.map(({ createdAt }) => (typeof createdAt === 'number' ? createdAt : Date.parse(String(createdAt))));
	let run = 1;
	for (let index = 1; index < times.length && run < ORDER_EVIDENCE; index++)
		run = times[index] < times[index - 1] ? run + 1 : times[index] === times[index - 1] ? run : 1;
	return run >= ORDER_EVIDENCE;
}

/** Invariant 3, once the shop is quiet: every registration made after activation and still listed came out once. */
async function everyOneOnce(shop: Shop, world: World): Promise<void> {
	world.poller.budgetMs = undefined;
	for (let poll = 0; poll < 3 && shop.triggerRefused === undefined; poll++) {
		const polledAt = sandbox().state.now().getTime();
		const { items, error } = await watchingPoll(shop, () => world.poller.poll());
		if (error !== undefined) pollFailed(shop, error, false);
		else pollCompleted(shop, polledAt, items.length > 0);
		emittedBy(shop, items);
	}
	if (shop.triggerRefused !== undefined) return;
	const unsure = unsureOf(shop);
	const never = [...shop.madeAfterActivation].filter(
		(id) => !shop.deleted.has(id) && !shop.emitted.has(id) && !unsure.has(id),
	);
	if (unsure.size > 0 && [...shop.madeAfterActivation].some((id) => unsure.has(id) && !shop.emitted.has(id)))
		excused('the Poll Trigger missed one of a run of one moment, ordered anew at each request, that no window can hold');
	if (never.length > 0)
		throw new Error(`The Poll Trigger never emitted ${never.length} registrations (${never.slice(0, 3)})`);
}

/**
 * The shop's history before the trigger's activation, over the past ten hours: in batches of `batch` (1: each at a
 * moment of its own), each batch one moment (an import, a create of several); a quarter of them in a form.
 */
function history(count: number, batch: number): Set<string> {
	const ids = new Set<string>();
	for (let from = 0; from < count; from += batch) {
		const createdAt = new Date(Date.now() - 10 * HOUR * (1 - from / count)).toISOString();
		const { registrations } = sandbox().state.createRegistrations(
			Array.from({ length: Math.min(batch, count - from) }, (_, index) => ({
				productName: `Blender B${(from + index) % 3}`,
				customerEmail: `earlier${from + index}@example.com`,
				...((from + index) % 4 === 0 ? { type: 'warranty' } : {}),
			})),
			createdAt,
		);
		for (const registration of registrations) ids.add(registration.id);
	}
	return ids;
}

test('exactly once, whatever the dialect: Get Many, Skip and Update, and the Poll Trigger over generated readings and histories', async () => {
	await fc.assert(
		fc.asyncProperty(
			dialectArbitrary,
			dateHeaderAheadArbitrary,
			fc.integer({ min: 0, max: 240 }),
			fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 100 })),
			fc.boolean(),
			fc.constantFrom(1, 1.1),
			fc.commands(commandArbitraries, { maxCommands: 12 }),
			async (dialect, dateHeaderAheadMs, earlier, batch, statesOrder, version, commands) => {
				sandbox().reset();
				sandbox().dialect = dialect;
				sandbox().dateHeaderAheadMs = dateHeaderAheadMs;
				tally.combinations += 1;
				if (isRealService(dialect)) tally.realService += 1;
				if (dialect.ties === 'reordered') tally.tiesReordered += 1;
				tally.dialects.add(JSON.stringify(dialect));
				const existedAtActivation = history(earlier, batch);
				// A user states the order (version 1), or keeps the default Newest First (1.1), only where it is the newest
				// first; a node of 1.1 over another order reads Any Order.
				const statesNewestFirst = statesOrder && dialect.order === 'newestFirst';
				if (statesNewestFirst) tally.statedOrder += 1;
				const shop: Shop = {
					existedAtActivation,
					statesNewestFirst,
					learnsOrder: version === 1 && !statesNewestFirst,
					madeAfterActivation: new Set(),
					unholdable: new Set(),
					deleted: new Set(),
					emitted: new Map(),
					customers: 0,
				};
				const byVersion = version === 1 ? 'learn' : 'anyOrder';
				const listOrder = { options: { listOrder: statesNewestFirst ? 'newestFirst' : byVersion } };
				tally.versions.set(version, (tally.versions.get(version) ?? 0) + 1);
				const poller = new PollingTrigger({ event: 'newRegistration', ...listOrder }, credentials(), version);
				try {
					// Held from its start: a failing activation is judged by what it had to read.
					pollCompleted(shop, sandbox().state.now().getTime(), true);
					await watchingPoll(shop, () => poller.activate());
				} catch (error) {
					pollFailed(shop, error as Error, false);
				}
				await fc.asyncModelRun(() => ({ model: shop, real: { sandbox: sandbox(), poller } }), commands);
				sandbox().faultPlan = undefined;
				sandbox().faultQueue.length = 0;
				await everyOneOnce(shop, { sandbox: sandbox(), poller });
			},
		),
		{ seed: SEED, numRuns: RUNS, path: process.env.PROPERTY_PATH, endOnFailure: true },
	);

	const kinds = [...tally.byCommand].map(([kind, count]) => `${count} ${kind}`).join(', ');
	const excuses = [...tally.excuses].map(([kind, count]) => `${count}: ${kind}`);
	const report = [
		`seed ${SEED}: ${tally.combinations} generated shops (${tally.realService} in the real service's dialect, ${tally.tiesReordered} ordering one moment's registrations anew at each request, ${tally.statedOrder} whose Poll Trigger reads Newest First, ${tally.versions.get(1.1) ?? 0} of version 1.1), ${tally.dialects.size} distinct dialects, ${tally.commands} commands (${kinds})`,
		'invariants held: Get Many every registration once; Skip/Update nothing created twice, every row accounted for; Poll Trigger nothing from before activation, nothing twice, every later registration once',
		`excuses accepted, each where the service failed or no client could do better: ${excuses.length === 0 ? 'none' : excuses.join('; ')}`,
	].join('\n');
	console.log(`\n${report}`);
	if (writesDocs())
		writeDocsSection('reliability.md', 'exactly-once', 'npm run docs:reliability', `\`\`\`\n${report}\n\`\`\``);
}, 600_000);
