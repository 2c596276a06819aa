import { searchList } from '../../harness/editorCalls';
import { useSandbox } from '../../harness/sandbox';
import { runNode } from '../../harness/workflowRunner';
import { REAL_SERVICE } from '../../sandbox/lists';
import { seedSampleData } from '../../sandbox/sampleData';

const { sandbox, credentials } = useSandbox();

const search = async (filter?: string) => await searchList('searchRegistrations', credentials(), filter);

describe('Registration "From List": the search the editor runs while the user types', () => {
	beforeEach(() => seedSampleData(sandbox().state));

	test('a complete e-mail address is searched by the service and lists what a person recognises', async () => {
		const { results } = await search(' ann.lee@example.com ');

		expect(sandbox().requests.map((request) => request.query)).toEqual([
			{ email: 'ann.lee@example.com', page: '1', limit: '100' },
		]);
		expect(results).toEqual([
			{ name: 'Toaster T2 · Ann Lee · 2024-05-17 (R000002)', value: 'R000002' },
			{ name: 'Kettle K1 · Ann Lee · 2024-03-01 (R000001)', value: 'R000001' },
		]);
	});

	test('without a filter it lists the registrations as the service does, the newest first', async () => {
		const { results, paginationToken } = await search();

		expect(sandbox().requests.map((request) => request.query)).toEqual([{ page: '1', limit: '100' }]);
		expect(results.map((result) => result.value)).toEqual(['R000003', 'R000002', 'R000001']);
		expect(paginationToken).toBeUndefined();
	});

	test('a long list comes a page at a time as the user scrolls: each answer says where the next page starts', async () => {
		sandbox().state.createRegistrations(
			Array.from({ length: 247 }, (_, index) => ({ productName: `Product ${index}`, customerEmail: 'x@example.com' })),
		);

		const first = await search();
		const second = await searchList('searchRegistrations', credentials(), undefined, {}, first.paginationToken);
		const third = await searchList('searchRegistrations', credentials(), undefined, {}, second.paginationToken);

		expect([first, second, third].map(({ results, paginationToken }) => [results.length, paginationToken])).toEqual([
			[100, '100:100'],
			[100, '200:100'],
			[50, undefined],
		]);
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

describe('Registration "From List", scrolled to its end, whatever page size the service gives', () => {
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

	test.each([
		['pages of at most 100, with a total (the real service)', { ...REAL_SERVICE }],
		['pages of at most 50, with a total', { ...REAL_SERVICE, cap: 50 }],
		['limit ignored: 20 a page, with a total', { ...REAL_SERVICE, limit: 'ignored' as const }],
		['pages of at most 50, { data } without a total', { ...REAL_SERVICE, cap: 50, shape: 'dataOnly' as const }],
	])('%s: each of 250 registrations is shown once', async (_, dialect) => {
		sandbox().dialect = dialect;
		sandbox().state.createRegistrations(
			Array.from({ length: 250 }, (_, index) => ({ productName: `Product ${index}`, customerEmail: 'x@example.com' })),
		);

		const shown = await scrollToEnd();

		expect(shown).toHaveLength(250);
		expect(new Set(shown).size).toBe(250);
	});
});
