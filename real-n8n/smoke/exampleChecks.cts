import type { Sandbox } from '../../sandbox/service.cts';
import type { StoredRegistration } from '../../sandbox/state.cts';
import type { ReceivedMail } from '../smtpServer.cts';

/** What each example must give when it runs in a real n8n: how it is started, how often, and what it must hold. */

export type Items = Array<Record<string, unknown>>;

export interface Check {
	/**
	 * How the example is started: by `n8n execute`, its webhook, or its form — `form` posts the fields and the file,
	 * `formPage` does what a browser does next and reads the form's ending page — or by its poll trigger, active at
	 * every minute while customers register (checkPolling).
	 */
	start: 'execute' | 'webhook' | 'form' | 'formPage' | 'poll';
	/** How often it is run, one run after the other (a scheduled import runs again, a form is sent twice). */
	runs?: number;
	/**
	 * Problems with what the last node gave in run `run` (and what the service now holds, the page the form ended on,
	 * and what any node of the run gave); none means it passed.
	 */
	check(items: Items, sandbox: Sandbox, run: number, page: string, itemsOf: (node: string) => Items): string[];
}

/** The two outlines of the app's webhook, sent one a run: as its documentation shows it, and as a live shop sent it. */
export const WEBHOOK_SAMPLES = ['sample-registration-webhook.json', 'sample-registration-webhook-wrapped.json'];

export const expectThat = (condition: boolean, problem: string) => (condition ? [] : [problem]);

/** The poll phase: the registrations customers made while the poll examples were active, and the e-mails sent. */
export const polling: { registered: StoredRegistration[]; mails: ReceivedMail[] } = { registered: [], mails: [] };

/** Problems with the registrations a poll example's trigger gave, over all its executions: each registered one once. */
function eachRegisteredOnce(triggered: Items): string[] {
	const given = triggered.map((item) => item.id as string);
	const expected = polling.registered.map((registration) => registration.id);
	const missing = expected.filter((id) => !given.includes(id));
	const twice = given.filter((id, index) => given.indexOf(id) !== index);
	const unexpected = given.filter((id) => !expected.includes(id));
	return expectThat(
		missing.length === 0 && twice.length === 0 && unexpected.length === 0,
		`each of the ${expected.length} registrations once expected; missing ${missing.slice(0, 5).join()}${missing.length > 5 ? '...' : ''}, twice ${twice.slice(0, 5).join()}, not registered then ${unexpected.slice(0, 5).join()}`,
	);
}

export const CHECKS: Record<string, Check> = {
	'confirm-new-registrations.json': {
		start: 'poll',
		check: (items, sandbox, _run, _page, itemsOf) => [
			...eachRegisteredOnce(itemsOf('New registration')),
			...expectThat(
				items.length === polling.registered.length && items.every((item) => item.status === 'Processing'),
				`each registration's status changed to Processing expected, got ${items.length} item(s): ${JSON.stringify(items.find((item) => item.status !== 'Processing') ?? '').slice(0, 200)}`,
			),
			...expectThat(
				polling.registered.every((registration) => {
					const history = sandbox.state.registrations.get(registration.id)?.statusHistory ?? [];
					return history.length === 1 && history[0].status === 'Processing';
				}),
				'the service should hold exactly one status change, Processing, for each registration',
			),
		],
	},
	'email-new-registrations.json': {
		start: 'poll',
		check: (_items, _sandbox, _run, _page, itemsOf) => [
			...eachRegisteredOnce(itemsOf('New registration')),
			...expectThat(
				polling.registered.every(
					(registration) =>
						polling.mails.filter(
							(mail) => mail.to.includes(registration.customerEmail!) && mail.text.includes(registration.id),
						).length === 1,
				),
				`one e-mail with its registration's ID to each customer expected; ${polling.mails.length} e-mails received for ${polling.registered.length} registrations`,
			),
		],
	},
	'import-serial-numbers.json': {
		start: 'execute',
		check: (items, sandbox) => [
			...expectThat(items.length === 3, `3 items expected, got ${items.length}`),
			...['WH-2024-9001', 'WH-2024-9002', 'WH-2024-9003'].flatMap((serial) =>
				expectThat(sandbox.state.serialCreations.get(serial) === 1, `${serial} should be created once`),
			),
		],
	},
	'register-products-from-spreadsheet.json': {
		start: 'execute',
		runs: 2,
		check: (items, _sandbox, run) => [
			...expectThat(items.length === 2, `2 items expected, got ${items.length}`),
			...expectThat(
				items.every((item) => item.outcome === (run === 1 ? 'created' : 'skipped')) &&
					items.map((item) => item.productName).join() === 'Kettle K1,Toaster T2' &&
					items[1]?.purchaseDate === '2024-08-02',
				`run ${run}: registrations ${run === 1 ? 'created' : 'skipped'} expected, got ${JSON.stringify(items).slice(0, 300)}`,
			),
		],
	},
	'serial-number-per-order.json': {
		start: 'execute',
		check: (items) => {
			const serials = items.map((item) => (item.serialNumbers as string[] | undefined)?.[0]);
			return [
				...expectThat(items.length === 2, `2 items expected, got ${items.length}`),
				...expectThat(
					serials.every(Boolean) && serials[0] !== serials[1],
					`two different serials expected, got ${serials.join()}`,
				),
			];
		},
	},
	'react-to-new-registration-version-1.json': {
		start: 'webhook',
		runs: WEBHOOK_SAMPLES.length,
		check: (...args) => CHECKS['react-to-new-registration.json'].check(...args),
	},
	'react-to-new-registration.json': {
		start: 'webhook',
		runs: WEBHOOK_SAMPLES.length,
		check: (items, _sandbox, run, _page, itemsOf) => {
			const [product] = itemsOf('Product Registration Trigger');
			const fields = (product?.fields ?? {}) as Record<string, unknown>;
			const expected =
				run === 1
					? { field: 'Upload Image (Receipt)', formSlug: undefined }
					: { field: 'InvoiceUpload', formSlug: 'extended-warranty' };
			return [
				...expectThat(
					items.length === 1 && items[0].found === true && items[0].serialNumber === 'KT-2024-0001',
					`the serial of the webhook looked up expected, got ${JSON.stringify(items)}`,
				),
				...expectThat(
					(product?.product as { title?: string } | undefined)?.title === 'Kettle K1' &&
						typeof fields[expected.field] === 'string' &&
						(product?.customer as { email?: string } | undefined)?.email === 'lea.noor@example.com' &&
						product?.formSlug === expected.formSlug,
					`${WEBHOOK_SAMPLES[run - 1]}: one item with product, fields["${expected.field}"], customer and formSlug ${expected.formSlug} expected, got ${JSON.stringify(product).slice(0, 400)}`,
				),
			];
		},
	},
	'upload-receipt-and-attach.json': {
		start: 'form',
		check: (items, sandbox) => {
			const history = (items[0]?.statusHistory as Array<{ status: string; assets?: Array<{ url: string }> }>) ?? [];
			const last = history[history.length - 1];
			return [
				...expectThat(
					items.length === 1 && items[0].id === 'R000001' && items[0].status === 'receipt received',
					`the status change of R000001 (Ann's Kettle K1) expected, got ${JSON.stringify(items).slice(0, 300)}`,
				),
				...expectThat(
					last?.assets?.[0]?.url.startsWith(sandbox.storage.url) === true,
					`the uploaded receipt attached expected, got ${JSON.stringify(last)}`,
				),
			];
		},
	},
	'register-from-form.json': {
		start: 'formPage',
		runs: 2,
		check: (_items, sandbox, run, page) => {
			const registrations = [...sandbox.state.registrations.values()].filter(
				(registration) => registration.customerEmail === FORM_EMAIL,
			);
			const receiptUrl = registrations[0]?.fields.receipt;
			return [
				...expectThat(
					registrations.length === 1 && registrations[0].productName === 'Blender B3',
					`run ${run}: one registration of Blender B3 for ${FORM_EMAIL} expected, got ${JSON.stringify(registrations).slice(0, 300)}`,
				),
				...expectThat(
					typeof receiptUrl === 'string' && receiptUrl.startsWith(sandbox.storage.url),
					`run ${run}: the receipt URL in the form field "receipt" expected, got ${JSON.stringify(receiptUrl)}`,
				),
				...expectThat(
					sandbox.requestsTo('GET', '/api/upload_file').length === 1 &&
						sandbox.storage.requests.filter((request) => request.method === 'PUT').length === 1,
					`run ${run}: one upload in all expected, got ${sandbox.requestsTo('GET', '/api/upload_file').length}`,
				),
				...expectThat(
					page.includes('Your Blender B3 is registered'),
					`run ${run}: the ending page naming the product expected, got ${JSON.stringify(page.slice(0, 300))}`,
				),
			];
		},
	},
};

export const FORM_EMAIL = 'dee.ross@example.com';
