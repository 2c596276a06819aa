import { randomBytes } from 'node:crypto';

import { eventually, openBinaryFiles } from '../../harness/openHandles.cts';
import { inlineItem, inlineReceipt, storagePuts, storedKey } from '../../harness/receipts.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode, storeBinary } from '../../harness/workflowRunner.cts';
import { BUCKET } from '../../sandbox/objectStorage.cts';

const { sandbox, credentials } = useSandbox();

const uploadParameters = (extra: Record<string, unknown> = {}) => ({ resource: 'file', operation: 'upload', ...extra });

describe('file: Upload', () => {
	test('an inline binary goes through both steps and comes back as { url, fileName, fileType, fileSize }', async () => {
		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error).toBeUndefined();
		const [output] = result.items;
		expect(output.pairedItem).toEqual({ item: 0 });
		expect(output.json).toEqual({
			url: expect.stringMatching(new RegExp(`^${sandbox().storage.url}/${BUCKET}/uploads/`)),
			fileName: 'receipt.pdf',
			fileType: 'application/pdf',
			fileSize: inlineReceipt.length,
		});
		expect(sandbox().requestsTo('GET', '/api/upload_file')[0].query).toEqual({
			fileName: 'receipt.pdf',
			fileType: 'application/pdf',
			fileSize: String(inlineReceipt.length),
		});
		expect(await sandbox().storage.readObject(storedKey(output.json.url as string))).toEqual(inlineReceipt);
	});

	test('a filesystem-mode binary is streamed to the storage byte for byte, with no Authorization and no token', async () => {
		const bytes = randomBytes(3 * 1024 * 1024 + 17);
		const binary = await storeBinary(bytes, { fileName: 'photo of receipt.jpg', mimeType: 'image/jpeg' });
		expect(binary.id).toBeDefined();

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [{ json: {}, binary: { data: binary } }],
		});

		const { url, fileName, fileType, fileSize } = result.items[0].json as Record<string, string | number>;
		expect({ fileName, fileType, fileSize }).toEqual({
			fileName: 'photo of receipt.jpg',
			fileType: 'image/jpeg',
			fileSize: bytes.length,
		});
		expect((await sandbox().storage.readObject(storedKey(url as string))).equals(bytes)).toBe(true);
		const [put] = storagePuts(sandbox());
		expect(put.headers['content-type']).toBe('image/jpeg');
		expect(put.headers['content-length']).toBe(String(bytes.length));
		expect(put.headers.authorization).toBeUndefined();
		expect(JSON.stringify(sandbox().storage.requests)).not.toContain(sandbox().token);
	});

	test('File Name and File Type options override the binary’s own, in the request and the signed PUT', async () => {
		const result = await runNode({
			parameters: uploadParameters({
				binaryPropertyName: 'scan',
				options: { fileName: 'order-1001.pdf', fileType: 'application/x-pdf' },
			}),
			credentials: credentials(),
			items: [
				{ json: {}, binary: { scan: inlineItem(inlineReceipt, 'scan.bin', 'application/octet-stream').binary!.data } },
			],
		});

		expect(result.items[0].json).toMatchObject({ fileName: 'order-1001.pdf', fileType: 'application/x-pdf' });
		expect(sandbox().requestsTo('GET', '/api/upload_file')[0].query).toMatchObject({
			fileName: 'order-1001.pdf',
			fileType: 'application/x-pdf',
		});
		expect(storagePuts(sandbox())[0].headers['content-type']).toBe('application/x-pdf');
	});

	test('an item without the binary field is refused before anything is sent, naming the item', async () => {
		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt), { json: { order: 1002 } }],
			continueOnFail: true,
		});

		expect(result.items[0].json.url).toBeDefined();
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(result.items[1].json.error).toContain("expects the node's input data to contain a binary file 'data'");
		expect(sandbox().requestsTo('GET', '/api/upload_file')).toHaveLength(1);
	});

	test('a File Type that is not a media type is refused', async () => {
		const result = await runNode({
			parameters: uploadParameters({ options: { fileType: 'pdf' } }),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error?.message).toBe(
			`The 'File Type' option is not a media type like application/pdf or image/jpeg: "pdf" [item 0]`,
		);
		expect(sandbox().requests).toHaveLength(0);
	});

	test('an expired upload address fails with what the storage said, naming the file', async () => {
		sandbox().uploadUrlTtlSeconds = -60;

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error?.message).toBe(
			'Could not upload "receipt.pdf" to the storage (HTTP 403): AccessDenied: Request has expired. The upload address may have expired or been signed for another file type; run the step again to get a new one.',
		);
		expect((result.error as { httpCode?: string }).httpCode).toBe('403');
	});

	test('an address signed for another file type fails with the storage’s SignatureDoesNotMatch', async () => {
		const key = sandbox().storage.newKey('receipt.pdf');
		sandbox().faultQueue.push({
			status: 200,
			body: {
				signedRequest: sandbox().storage.signPut(key, 'image/png', new Date(Date.now() + 60_000)),
				url: sandbox().storage.objectUrl(key),
			},
		});

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error?.message).toMatch(
			/^Could not upload "receipt.pdf" to the storage \(HTTP 403\): SignatureDoesNotMatch: The request signature we calculated does not match/,
		);
	});

	test('a connection cut mid-upload is an error, never a half-reported success', async () => {
		const bytes = randomBytes(4 * 1024 * 1024);
		const binary = await storeBinary(bytes, { fileName: 'big-receipt.tiff', mimeType: 'image/tiff' });
		sandbox().storage.cutNextPutAfterBytes = 256 * 1024;

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [{ json: {}, binary: { data: binary } }],
			continueOnFail: true,
		});

		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.url).toBeUndefined();
		expect(result.items[0].json.error).toMatch(
			/^Could not upload "big-receipt.tiff" to the storage: the connection (was reset|was closed while sending) before the upload completed\. The file is not stored; run the step again\.$/,
		);
	});

	test.each([
		[
			'the service refuses the upload address',
			() => sandbox().faultQueue.push({ status: 401, body: { message: 'Invalid access token' } }),
		],
		['the storage refuses the file', () => (sandbox().uploadUrlTtlSeconds = -60)],
		['the connection to the storage breaks', () => (sandbox().storage.cutNextPutAfterBytes = 64 * 1024)],
	])('when %s, no file of the binary store is left open', async (_case, fail) => {
		const binary = await storeBinary(randomBytes(2 * 1024 * 1024), {
			fileName: 'receipt.tiff',
			mimeType: 'image/tiff',
		});
		fail();

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [{ json: {}, binary: { data: binary } }],
		});

		expect(result.error?.message).toBeDefined();
		expect(await eventually(() => openBinaryFiles().length === 0)).toBe(true);
	});

	test('a service answer without an upload address is a clear error', async () => {
		sandbox().faultQueue.push({ status: 200, body: { uploadUrl: 'elsewhere' } });

		const result = await runNode({
			parameters: uploadParameters(),
			credentials: credentials(),
			items: [inlineItem(inlineReceipt)],
		});

		expect(result.error?.message).toBe(
			'The service\'s answer to the upload request for "receipt.pdf" holds no upload address (signedRequest) and file URL (url)',
		);
		expect(storagePuts(sandbox())).toHaveLength(0);
	});
});
