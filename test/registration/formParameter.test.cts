import type { NodeParameterValueType } from 'n8n-workflow';

import { searchList } from '../../harness/editorCalls.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { NO_FORM_LIST } from '../../nodes/shared/listSearch';
import { seedSampleData } from '../../sandbox/sampleData.cts';

const { sandbox, credentials } = useSandbox();

const search = async (filter?: string) => await searchList('searchForms', credentials(), filter);

describe('Form "From List": the forms the service lists', () => {
	beforeEach(() => seedSampleData(sandbox().state));

	test('lists each form by name, with its slug, from GET /api/forms', async () => {
		const { results } = await search();

		expect(sandbox().requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /api/forms']);
		expect(results).toEqual([
			{ name: 'Extended warranty (extended-warranty)', value: 'extended-warranty' },
			{ name: 'Warranty claim (warranty-claim)', value: 'warranty-claim' },
		]);
	});

	test('what is typed narrows the list by name or slug', async () => {
		expect((await search('CLAIM')).results.map((result) => result.value)).toEqual(['warranty-claim']);
		expect((await search('extended-')).results.map((result) => result.value)).toEqual(['extended-warranty']);
		expect((await search('nothing like it')).results).toEqual([]);
	});

	test('a service without a list of forms (404) gets one entry saying so, and to type the slug', async () => {
		sandbox().listsForms = false;

		const { results } = await search();

		expect(results).toEqual([{ name: NO_FORM_LIST, value: '' }]);
		expect(NO_FORM_LIST).toBe(
			'This service does not list its forms: choose By Slug and type the slug (Form > View on the frontend in the admin)',
		);
	});

	test('any other failure shows the error the node gives', async () => {
		await expect(searchList('searchForms', { ...credentials(), accessToken: 'wrong' })).rejects.toThrow(
			'The service rejected the access token (HTTP 401): Invalid access token',
		);
	});
});

/** Every way a saved workflow holds the form: picked, typed, mapped, and the plain text fields saved before 0.4. */
const savedForms: Array<[string, NodeParameterValueType]> = [
	[
		'picked from the list',
		{ __rl: true, mode: 'list', value: 'extended-warranty', cachedResultName: 'Extended warranty' },
	],
	['typed by slug', { __rl: true, mode: 'id', value: 'extended-warranty' }],
	['mapped by slug', { __rl: true, mode: 'id', value: '={{ $json.form }}' }],
	['a plain slug (saved before 0.4)', 'extended-warranty'],
	['a plain expression (saved before 0.4)', '={{ $json.form }}'],
];

describe('Form, as each kind of saved workflow holds it', () => {
	beforeEach(() => seedSampleData(sandbox().state));

	test.each(savedForms)('Create, %s: the registration goes to that form', async (_kind, formSlug) => {
		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: 'cy@example.com',
				additionalFields: { formSlug },
			},
			credentials: credentials(),
			items: [{ json: { form: 'extended-warranty' } }],
		});

		expect(result.error).toBeUndefined();
		const [post] = sandbox().requestsTo('POST', '/api/registrations');
		expect(post.body).toEqual({
			registrations: [{ productName: 'Kettle K1', customerEmail: 'cy@example.com', type: 'extended-warranty' }],
		});
	});

	test.each(savedForms)('Get Many, %s: only that form is listed', async (_kind, formSlug) => {
		const result = await runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true, filters: { formSlug } },
			credentials: credentials(),
			items: [{ json: { form: 'extended-warranty' } }],
		});

		expect(result.error).toBeUndefined();
		expect(sandbox().requestsTo('GET', '/api/registrations')[0].query.formSlug).toBe('extended-warranty');
		expect(result.items.map((item) => item.json.productName)).toEqual(['Toaster T2']);
	});

	test('a form added in the editor but left empty sends no form, and the service having no list of forms changes no run', async () => {
		sandbox().listsForms = false;

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'getAll',
				returnAll: true,
				filters: { formSlug: { __rl: true, mode: 'list', value: '' } },
			},
			credentials: credentials(),
		});

		expect(sandbox().requestsTo('GET', '/api/registrations')[0].query).not.toHaveProperty('formSlug');
		expect(result.items).toHaveLength(3);
	});
});
