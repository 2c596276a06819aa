import { useSandbox } from '../../harness/sandbox.cts';

// The upload tests are only worth something if the storage really refuses what a real pre-signed URL refuses.
const { sandbox } = useSandbox();

async function askUpload(fileName: string, fileType: string, fileSize: number) {
	const query = new URLSearchParams({ fileName, fileType, fileSize: String(fileSize) });
	const response = await fetch(`${sandbox().baseUrl}/api/upload_file?${query}`, {
		headers: { authorization: `Bearer ${sandbox().token}` },
	});
	expect(response.status).toBe(200);
	return (await response.json()) as { signedRequest: string; url: string };
}

const bytes = Buffer.from('%PDF-1.4 receipt of order 1001\n');

async function put(url: string, contentType: string, extraHeaders: Record<string, string> = {}) {
	const response = await fetch(url, {
		method: 'PUT',
		body: bytes,
		headers: { 'content-type': contentType, ...extraHeaders },
	});
	return { status: response.status, text: await response.text() };
}

describe('object storage behind the sandbox', () => {
	test('a PUT with the signed Content-Type stores the exact bytes at the returned url', async () => {
		const { signedRequest, url } = await askUpload('receipt 1001.pdf', 'application/pdf', bytes.length);

		expect((await put(signedRequest, 'application/pdf')).status).toBe(200);
		const stored = await fetch(url);
		expect(Buffer.from(await stored.arrayBuffer())).toEqual(bytes);
	});

	test('another Content-Type than the signed one is refused', async () => {
		const { signedRequest } = await askUpload('receipt.pdf', 'application/pdf', bytes.length);

		const answer = await put(signedRequest, 'image/png');
		expect(answer.status).toBe(403);
		expect(answer.text).toContain('SignatureDoesNotMatch');
	});

	test('a tampered signature is refused', async () => {
		const { signedRequest } = await askUpload('receipt.pdf', 'application/pdf', bytes.length);
		const tampered = new URL(signedRequest);
		tampered.searchParams.set('Signature', 'AAAA' + tampered.searchParams.get('Signature')!.slice(4));

		const answer = await put(tampered.toString(), 'application/pdf');
		expect(answer.status).toBe(403);
		expect(answer.text).toContain('SignatureDoesNotMatch');
	});

	test('an expired address is refused', async () => {
		const key = sandbox().storage.newKey('late.pdf');
		const expired = sandbox().storage.signPut(key, 'application/pdf', new Date(Date.now() - 60_000));

		const answer = await put(expired, 'application/pdf');
		expect(answer.status).toBe(403);
		expect(answer.text).toContain('AccessDenied');
	});

	test('an Authorization header beside the signature is refused', async () => {
		const { signedRequest } = await askUpload('receipt.pdf', 'application/pdf', bytes.length);

		const answer = await put(signedRequest, 'application/pdf', { authorization: `Bearer ${sandbox().token}` });
		expect(answer.status).toBe(400);
		expect(answer.text).toContain('Only one auth mechanism allowed');
	});

	test('the storage records the headers it received', async () => {
		const { signedRequest } = await askUpload('receipt.pdf', 'application/pdf', bytes.length);
		await put(signedRequest, 'application/pdf');

		const [request] = sandbox().storage.requests.filter((entry) => entry.method === 'PUT');
		expect(request.headers['content-type']).toBe('application/pdf');
		expect(request.headers['content-length']).toBe(String(bytes.length));
		expect(request.headers.authorization).toBeUndefined();
	});
});
