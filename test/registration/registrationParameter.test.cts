import { searchList } from '../../harness/editorCalls.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import type { ListDialect } from '../../sandbox/lists.cts';
import { API_PAGE, REAL_SERVICE } from '../../sandbox/lists.cts';
import { seedSampleData } from '../../sandbox/sampleData.cts';

const { sandbox, credentials } = useSandbox();

const search = async (filter?: string) => await searchList('searchRegistrations', credentials(), filter);

describe('Registration "From List": the search the editor runs while the user types', () => {
	beforeEach(() => seedSampleData(sandbox().state));

	test('a complete e-mail address is searched by the service and lists what a person recognises', async () => {
		const { results } = await search(' ann.lee@example.com ');

		expect(sandbox().requests.map((request) => request.query)).toEqual([
			{ email: 'ann.lee@example.com', page: '1', limit: '99' },
		]);
		expect(results).toEqual([
			{ name: 'Toaster T2 · Ann Lee · 2024-05-17 (R000002)', value: 'R000002' },
			{ name: 'Kettle K1 · Ann Lee · 2024-03-01 (R000001)', value: 'R000001' },
		]);
	});

	test('without a filter it lists the registrations as the service does, the newest first', async () => {
		const { results, paginationToken } = await search();

		expect(sandbox().requests.map((request) => request.query)).toEqual([{ page: '1', limit: '99' }]);
		expect(results.map((result) => result.value)).toEqual(['R000003', 'R000002', 'R000001']);
		expect(paginationToken).toBeUndefined();
	});

	test('a long list comes a page at a time as the user scrolls: each answer says where the next page starts, from the last shown', async () => {
		sandbox().state.registerOverTime(
			Array.from({ length: 247 }, (_, index) => ({ productName: `Product ${index}`, customerEmail: 'x@example.com' })),
		);

		const first = await search();
		const second = await searchList('searchRegistrations', credentials(), undefined, {}, first.paginationToken);
		const third = await searchList('searchRegistrations', credentials(), undefined, {}, second.paginationToken);

		const shown = [first, second, third].map(({ results }) => results.map((result) => String(result.value)));
		expect(shown[0]).toHaveLength(99);
		expect(shown.every((results) => results.length <= 99)).toBe(true);
		// Each page goes on from the reader's place (the anchor: the last record before the closing moment, where it stands,
		// the total then, the window the service gives), and what the page showed is not shown again.
		expect(JSON.parse(first.paginationToken!)).toEqual({
			from: expect.objectContaining({ anchor: `id:${shown[0][97]}`, at: 97, total: 250, size: 99 }),
			shown: shown[0],
		});
		expect(third.paginationToken).toBeUndefined();
		expect(new Set([first, second, third].flatMap(({ results }) => results.map((result) => result.value))).size).toBe(
			250,
		);
	});

	test('typing narrows each page; pages with no match are read on until one has some', async () => {
		sandbox().state.createRegistrations([{ productName: 'Rare Grinder G9', customerEmail: 'gia@example.com' }]);
		sandbox().state.createRegistrations(
			Array.from({ length: 250 }, (_, index) => ({ productName: `Product ${index}`, customerEmail: 'x@example.com' })),
		);

		const { results, paginationToken } = await search('grinder');

		expect(results.map((result) => result.name)).toEqual(['Rare Grinder G9 · gia@example.com (R000004)']);
		expect(sandbox().requests.map((request) => request.query.page)).toEqual(['1', '2', '3']);
		expect(paginationToken).toBeUndefined();
	});

	test('part of an e-mail, a name, a product or an ID narrows the list', async () => {
		expect((await search('bo.ch')).results.map((result) => result.value)).toEqual(['R000003']);
		expect((await search('toaster')).results.map((result) => result.value)).toEqual(['R000002']);
		expect((await search('ann')).results.map((result) => result.value)).toEqual(['R000002', 'R000001']);
		expect((await search('R000001')).results.map((result) => result.value)).toEqual(['R000001']);
		expect((await search('nobody')).results).toEqual([]);
	});

	test('entries the service lists without product or customer show their ID; entries without an ID are left out', async () => {
		sandbox().faultQueue.push({
			status: 200,
			body: [{ id: 'R9' }, { regId: 'R10', productName: 'Blender B3' }, { productName: 'no id' }],
		});

		expect((await search()).results).toEqual([
			{ name: 'R9', value: 'R9' },
			{ name: 'Blender B3 (R10)', value: 'R10' },
		]);
	});

	test('a wrong token shows the same clear error the node gives', async () => {
		await expect(searchList('searchRegistrations', { ...credentials(), accessToken: 'not-the-token' })).rejects.toThrow(
			'The service rejected the access token (HTTP 401): Invalid access token',
		);
	});
});

describe('Registration, as each kind of saved workflow holds it', () => {
	beforeEach(() => seedSampleData(sandbox().state));

	test.each([
		[
			'picked from the list',
			{ __rl: true, mode: 'list', value: 'R000002', cachedResultName: 'Toaster T2 · Ann Lee · 2024-05-17 (R000002)' },
		],
		['typed by ID', { __rl: true, mode: 'id', value: 'R000002' }],
		['mapped by ID', { __rl: true, mode: 'id', value: '={{ $json.registration }}' }],
		['a plain ID (saved before 0.2)', 'R000002'],
		['a plain expression (saved before 0.2)', '={{ $json.registration }}'],
	])('%s', async (_kind, registrationId) => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId,
				status: 'approved',
				isPublic: true,
			},
			credentials: credentials(),
			items: [{ json: { registration: 'R000002' } }],
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().requestsTo('POST', '/api/registrations/R000002/status')).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ id: 'R000002', status: 'approved' });
	});
});

/** Scrolls From List (no filter) to its end as the editor does: each answer's token asks for the next. */
async function scrollToEnd(): Promise<string[]> {
	const shown: string[] = [];
	let token: string | undefined;
	for (let page = 0; page < 50; page++) {
		const { results, paginationToken } = await searchList('searchRegistrations', credentials(), undefined, {}, token);
		shown.push(...results.map((result) => String(result.value)));
		if (paginationToken === undefined) break;
		token = paginationToken;
	}
	return shown;
}

/** `count` registrations for one customer, each of another product. */
const createMany = (count: number) =>
	sandbox().state.createRegistrations(
		Array.from({ length: count }, (_, index) => ({ productName: `Product ${index}`, customerEmail: 'x@example.com' })),
	);

describe('Registration "From List", scrolled to its end, in each dialect the API page leaves open', () => {
	const all = 250;
	test.each<[string, ListDialect, number]>([
		['pages of at most 100, with a total (the real service)', { ...REAL_SERVICE }, all],
		['pages of at most 50, with a total', { ...REAL_SERVICE, cap: 50 }, all],
		['pages of at most 50, with meta.total', { ...REAL_SERVICE, cap: 50, shape: 'dataMetaTotal' }, all],
		['limit ignored: 20 a page, with a total', { ...REAL_SERVICE, limit: 'ignored' }, all],
		['limit ignored: 20 a page, { data } without a total', { ...REAL_SERVICE, limit: 'ignored', shape: 'dataOnly' }, all],
		['pages of at most 50, { data } without a total', { ...REAL_SERVICE, cap: 50, shape: 'dataOnly' }, all],
		['page and limit honoured, with a total', { ...REAL_SERVICE, limit: 'honoured' }, all],
		['page and limit honoured, { data } without a total', { ...REAL_SERVICE, limit: 'honoured', shape: 'dataOnly' }, all],
		['the oldest first, pages of at most 50', { ...REAL_SERVICE, cap: 50, order: 'oldestFirst' }, all],
		['in no order, numeric ids under regId', { ...REAL_SERVICE, order: 'none', idKey: 'regId', numericIds: true }, all],
		// No pages: the answer without `limit` is every match.
		['a bare array cut by limit (the API page)', { ...API_PAGE }, all],
		['a bare array cut to 50', { ...API_PAGE, limit: 'capped', cap: 50 }, all],
		// `page` ignored: every answer is the list's start again, so the first answer is all the list can show.
		// (A read from the start again asks for 990: a page of the service's, 100.)
		['page ignored, with a total', { ...REAL_SERVICE, pages: 'ignored' }, 100],
		['page ignored, { data } without a total', { ...REAL_SERVICE, pages: 'ignored', shape: 'dataOnly' }, 100],
		['page ignored, pages of at most 50', { ...REAL_SERVICE, pages: 'ignored', cap: 50 }, 50],
		['page and limit ignored: 20 an answer', { ...REAL_SERVICE, pages: 'ignored', limit: 'ignored' }, 20],
	])('%s: each registration it can reach is shown once', async (_, dialect, reachable) => {
		sandbox().dialect = dialect;
		createMany(all);

		const shown = await scrollToEnd();

		expect(shown).toHaveLength(reachable);
		expect(new Set(shown).size).toBe(reachable);
	});

	test('page ignored: scrolled on, the list shows only what its first answer did not, and ends within three answers', async () => {
		sandbox().dialect = { ...REAL_SERVICE, pages: 'ignored', shape: 'dataOnly' };
		createMany(250);

		const answers = [await search()];
		while (answers.length < 5 && answers.at(-1)!.paginationToken !== undefined)
			answers.push(await searchList('searchRegistrations', credentials(), undefined, {}, answers.at(-1)!.paginationToken));
		const shown = answers.flatMap(({ results }) => results.map((result) => result.value));

		expect(answers[0].results).toHaveLength(99);
		expect(answers.length).toBeLessThanOrEqual(3);
		expect(shown.length).toBe(new Set(shown).size);
	});

	test("typed text that matches nothing, page ignored: the list's start is read at most three times, not ten", async () => {
		sandbox().dialect = { ...REAL_SERVICE, pages: 'ignored' };
		createMany(250);

		expect(await search('nobody')).toEqual({ results: [] });
		// Each read from the start: its page 1, and the window after it, the start again.
		expect(sandbox().requests.length).toBeLessThanOrEqual(6);
	});

	test('a token the editor kept from before 0.7 ("offset:pageSize") starts the list again from its start', async () => {
		sandbox().dialect = { ...REAL_SERVICE, cap: 50 };
		createMany(120);

		const { results } = await searchList('searchRegistrations', credentials(), undefined, {}, '50:50');

		expect(results[0].value).toBe('R000120');
	});
});

/**
 * The review of issue 41 (its proven test "From List (the Registration parameter), scrolled to its end"): with pages
 * of at most 50 the picker showed 150 of 250, with limit ignored (20 a page) 60, and with pages of at most 50 without
 * a total 50 — it counted pages by the 100 it asked for, not by the size the service gave.
 */
describe('regression: From List (the Registration parameter), scrolled to its end', () => {
	const SECOND = 1000;
	let made = 0;

	beforeEach(() => {
		made = 0;
	});

	/** `count` registrations, one every `everyMs` of the service's clock, each for a new customer. */
	function oneByOne(count: number, everyMs: number): string[] {
		const ids: string[] = [];
		for (let index = 0; index < count; index++) {
			made += 1;
			const { registrations } = sandbox().state.createRegistrations([
				{ productName: 'Kettle K1', customerEmail: `buyer${made}@example.com` },
			]);
			ids.push(registrations[0].id);
			sandbox().state.clockAheadMs += everyMs;
		}
		return ids;
	}

	test.each([
		['pages of at most 50, with a total', { ...REAL_SERVICE, cap: 50 }],
		['limit ignored: 20 a page, with a total', { ...REAL_SERVICE, limit: 'ignored' as const }],
		['pages of at most 50, { data } without a total', { ...REAL_SERVICE, cap: 50, shape: 'dataOnly' as const }],
	])('%s: every one of 250 registrations can be found', async (_, dialect) => {
		sandbox().dialect = { ...dialect };
		oneByOne(250, SECOND);

		const shown = await scrollToEnd();

		expect(new Set(shown).size).toBe(250);
	});
});
