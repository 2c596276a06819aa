import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { INodeParameters } from 'n8n-workflow';

import { inlineItem, inlineReceipt } from '../../harness/receipts.cts';
import { seedRegistration, useSandbox } from '../../harness/sandbox.cts';
import type { RunNodeResult } from '../../harness/workflowRunner.cts';
import { runNode } from '../../harness/workflowRunner.cts';
import { bounded, ECHO_LIMIT } from '../../nodes/shared/transport/quotedAnswer';

/**
 * What the service or the storage says never floods an execution: a 10 MB answer becomes at most ECHO_LIMIT
 * characters of a message, on real sockets through n8n's engine, and the token is masked in what is kept.
 */

const { sandbox, credentials } = useSandbox();

const TEN_MB = 10 * 1024 * 1024;
/** A message and description quote at most ECHO_LIMIT characters of the answer, beside the node's own words. */
const MESSAGE_BOUND = ECHO_LIMIT + 400;

/** The error a user sees, and everything n8n stores of it: message and description within the bound, no token. */
function expectBounded(error: RunNodeResult['error'], token: string): void {
	expect(error).toBeDefined();
	const { message, description } = error as { message: string; description?: string };
	expect(message.length + (description ?? '').length).toBeLessThan(MESSAGE_BOUND);
	expect(JSON.stringify(error)).not.toContain(token.slice(0, 12));
}

/** A body that says the token right where the quote is cut, then goes on for megabytes. */
const floodWithToken = (token: string) => `${'x'.repeat(ECHO_LIMIT - 5)}${token}${'y'.repeat(TEN_MB)}`;

describe('a 10 MB answer', () => {
	test('a 500 with a 10 MB JSON error fails Delete with the first 1,000 characters and the size, never the token', async () => {
		const id = seedRegistration(sandbox());
		sandbox().faultQueue.push({ status: 500, body: { error: floodWithToken(sandbox().token) } });

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: id },
			credentials: credentials(),
		});

		expectBounded(result.error, sandbox().token);
		expect(result.error?.message).toMatch(/^The service answered HTTP 500: x{995}\[acce… \(10\.0 MB in all\)$/);
	});

	test('under Continue On Fail each error item stays under a few KB', async () => {
		const ids = [seedRegistration(sandbox()), seedRegistration(sandbox()), seedRegistration(sandbox())];
		const answer = { status: 500, body: { error: floodWithToken(sandbox().token) } };
		sandbox().faultQueue.push(answer, answer, answer);

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'delete', registrationId: '={{ $json.id }}' },
			credentials: credentials(),
			items: ids.map((id) => ({ json: { id } })),
			continueOnFail: true,
		});

		expect(result.items).toHaveLength(3);
		for (const item of result.items) {
			expect(String(item.json.error)).toContain('… (10.0 MB in all)');
			expect(JSON.stringify(item).length).toBeLessThan(2 * 1024);
			expect(JSON.stringify(item)).not.toContain(sandbox().token.slice(0, 12));
		}
	});

	test('a 200 with a 10 MB HTML page to a create is an unknown outcome quoting its start', async () => {
		sandbox().faultQueue.push({ status: 200, body: `<html><body><h1>Maintenance</h1><p>${'z'.repeat(TEN_MB)}</p>` });

		const result = await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: 'ann@example.com',
			},
			credentials: credentials(),
		});

		expectBounded(result.error, sandbox().token);
		expect(result.error?.message).toMatch(
			/^The outcome is unknown: the service answered HTTP 200 with something that is not JSON/,
		);
	});

	test('a 200 with a 10 MB HTML page to Get Many fails with a bounded message', async () => {
		sandbox().faultQueue.push({ status: 200, body: `<html><title>Proxy</title>${'<p>down</p>'.repeat(TEN_MB / 11)}` });

		const result = await runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true, options: { maxRetries: 0 } },
			credentials: credentials(),
		});

		expectBounded(result.error, sandbox().token);
		expect(result.error?.message).toMatch(/not JSON \(text\/html; charset=utf-8: "Proxy down down/);
	});

	test('a storage answering 403 with a 10 MB XML body fails the upload naming the file, bounded', async () => {
		const storage = createServer((request, response) => {
			request.resume();
			request.on('end', () => {
				response.writeHead(403, { 'content-type': 'application/xml' });
				response.end(`<Error><Code>AccessDenied</Code><Message>${'m'.repeat(TEN_MB)}</Message></Error>`);
			});
		});
		await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
		const { port } = storage.address() as AddressInfo;
		sandbox().faultQueue.push({
			status: 200,
			body: { signedRequest: `http://127.0.0.1:${port}/receipts/r.pdf`, url: 'https://files.example.com/r.pdf' },
		});

		try {
			const result = await runNode({
				parameters: { resource: 'file', operation: 'upload' },
				credentials: credentials(),
				items: [inlineItem(inlineReceipt)],
			});

			expectBounded(result.error, sandbox().token);
			expect(result.error?.message).toMatch(
				/^Could not upload "receipt\.pdf" to the storage \(HTTP 403\): AccessDenied: m+… \(10\.0 MB in all\)/,
			);
		} finally {
			await new Promise((resolve) => storage.close(resolve));
		}
	});

	test('twenty failing items keep nothing of their answers in memory once the run is over', async () => {
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		const parameters: INodeParameters = {
			resource: 'registration',
			operation: 'delete',
			registrationId: '={{ $json.id }}',
		};
		const items = Array.from({ length: 20 }, (_, index) => ({ json: { id: `R${index}` } }));
		// One answer, sent twenty times: it is alive before and after, so only what the run keeps is measured.
		const answer = { status: 500, body: { error: 'e'.repeat(2 * 1024 * 1024) } };
		sandbox().faultQueue.push(...items.map(() => answer));
		gc();
		const before = process.memoryUsage().heapUsed;

		const result = await runNode({ parameters, credentials: credentials(), items, continueOnFail: true });
		gc();

		// Twenty messages holding their answers would keep 20 × 2 MB alive.
		expect(result.items).toHaveLength(20);
		expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
		expect(answer.body.error).toHaveLength(2 * 1024 * 1024);
	});
});

describe('bounded', () => {
	test('keeps short text whole, with the token masked', () => {
		expect(bounded('token abc123 refused', 'abc123', 20)).toBe('token [access token] refused');
	});

	test('cuts long text at the limit and says how much there was', () => {
		expect(bounded('a'.repeat(5000), '', 5000)).toBe(`${'a'.repeat(ECHO_LIMIT)}… (4.9 KB in all)`);
	});

	test('never cuts a character in two', () => {
		const text = `${'a'.repeat(ECHO_LIMIT - 1)}😀${'b'.repeat(10)}`;
		expect(bounded(text, '', undefined)).toBe(`${'a'.repeat(ECHO_LIMIT - 1)}… (cut)`);
	});

	test('masks a token that the cut would split', () => {
		const token = 'secret-token-0123456789';
		const kept = bounded(`${'a'.repeat(ECHO_LIMIT - 6)}${token}${'b'.repeat(100)}`, token, 2000);
		expect(kept).toBe(`${'a'.repeat(ECHO_LIMIT - 6)}[acces… (2.0 KB in all)`);
		expect(kept).not.toContain('secret');
	});
});
