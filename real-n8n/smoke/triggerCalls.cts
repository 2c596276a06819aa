import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Example } from '../examples.cts';
import { WEBHOOK_SECRET } from '../examples.cts';
import type { RealN8n } from '../instance.cts';
import { root, waitFor } from '../instance.cts';
import type { Check, Items } from './exampleChecks.cts';
import { FORM_EMAIL, WEBHOOK_SAMPLES } from './exampleChecks.cts';

/**
 * Calling an active example's trigger as its real caller would (the app's webhook, a customer's form) and reading
 * what it shows.
 */

const RECEIPT = Buffer.from('%PDF-1.4\nReceipt for order 1001: Kettle K1, $49.00\n%%EOF\n');
/** A photo of a receipt as customers send it: 1 MB. */
const LARGE_RECEIPT = Buffer.alloc(1024 * 1024, 'receipt of order 2001, Blender B3, $89.00; ');

/** The fields of each form example, in the order of its form (n8n names them field-0, field-1, ...), then its file. */
const FORM_FIELDS: Record<string, { fields: string[]; file: { bytes: Buffer; name: string; type: string } }> = {
	'upload-receipt-and-attach.json': {
		fields: ['ann.lee@example.com', 'Kettle K1'],
		file: { bytes: RECEIPT, name: 'receipt-1001.pdf', type: 'application/pdf' },
	},
	'register-from-form.json': {
		fields: ['Dee Ross', FORM_EMAIL, 'Blender B3', '', '2024-09-14'],
		file: { bytes: LARGE_RECEIPT, name: 'receipt-2001.jpg', type: 'image/jpeg' },
	},
};

/**
 * The query a webhook trigger's caller adds, as a user pastes it into the admin: ?secret= with the trigger's Shared
 * Secret — its parameter in a node added before 0.7 (version 1), else its credential's when Authentication says so.
 */
function secretQuery(trigger: Example['workflow']['nodes'][number]): string {
	const secret =
		trigger.typeVersion < 2
			? String(trigger.parameters.secret ?? '')
			: trigger.parameters.authentication === 'sharedSecret'
				? WEBHOOK_SECRET
				: '';
	return secret === '' ? '' : `?secret=${encodeURIComponent(secret)}`;
}

/** Sends a request until the workflow's webhook is registered: 2.x registers them a little after it reports ready. */
async function untilRegistered(url: string, init: RequestInit = {}): Promise<Response> {
	return await waitFor(`the webhook ${url}`, async () => {
		const response = await fetch(url, init);
		return response.status === 404 ? undefined : response;
	});
}

/**
 * Calls the trigger of a started, active example the way its real caller would, and returns the page a form ended on:
 * a browser loads the form, posts it (multipart), gets the address of the form's next page, waits until the workflow
 * reaches it, and shows it.
 */
export async function callTrigger(n8n: RealN8n, example: Example, start: Check['start'], run: number): Promise<string> {
	const trigger = example.workflow.nodes.find((node) => node.webhookId)!;
	if (start === 'webhook') {
		const payload = readFileSync(join(root, 'examples', WEBHOOK_SAMPLES[run - 1]));
		const url = `${n8n.baseUrl}/webhook/${trigger.webhookId}/product-registration${secretQuery(trigger)}`;
		await untilRegistered(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
		return '';
	}
	const { fields, file } = FORM_FIELDS[example.file];
	const url = `${n8n.baseUrl}/form/${(trigger.parameters.path as string | undefined) || trigger.webhookId}`;
	await untilRegistered(url);
	const form = new FormData();
	fields.forEach((value, index) => form.append(`field-${index}`, value));
	form.append(`field-${fields.length}`, new Blob([file.bytes], { type: file.type }), file.name);
	const posted = await fetch(url, { method: 'POST', body: form });
	if (start === 'form') return await posted.text();
	const { formWaitingUrl } = (await posted.json()) as { formWaitingUrl: string };
	// The next page's address, on the address n8n listens on; n8n 2.x signs it with a query the page keeps.
	const nextPage = new URL(formWaitingUrl);
	nextPage.host = new URL(n8n.baseUrl).host;
	const status = new URL(nextPage);
	status.pathname += '/n8n-execution-status';
	// The form's own script asks this until the workflow waits at the ending page.
	await waitFor('the form ending page', async () => {
		const text = (await (await fetch(status)).text()).trim();
		return ['form-waiting', 'success', 'error'].includes(text) ? text : undefined;
	});
	return await (await fetch(nextPage)).text();
}

/** What the trigger's items hold, in short: each product's title, its fields' names and the form's slug. */
export function triggerSummary(items: Items): string {
	return JSON.stringify(
		items.map((item) => ({
			product: (item.product as { title?: string } | undefined)?.title,
			fields: Object.keys((item.fields ?? {}) as object),
			formSlug: item.formSlug,
		})),
	);
}

/** The words of an HTML page's title and headings and paragraphs, for the report. */
export function pageText(html: string): string {
	return [...html.matchAll(/<(h1|h2|p)[^>]*>([^<]*)</g)]
		.map((match) => match[2].trim())
		.filter(Boolean)
		.join(' ')
		.slice(0, 200);
}
