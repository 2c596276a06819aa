import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { execFileSync } from 'node:child_process';

import { runNode, storeBinary } from '../harness/workflowRunner.cts';
import { Sandbox } from '../sandbox/service.cts';
import type { Measurement } from './measure.cts';
import { measure } from './measure.cts';

/** How a 1 GiB file is sent to the same pre-signed storage address. */
export type UploadWay = 'node' | 'buffered' | 'streamed';

async function signedAddress(sandbox: Sandbox, size: number): Promise<string> {
	const query = new URLSearchParams({
		fileName: 'bench.bin',
		fileType: 'application/octet-stream',
		fileSize: String(size),
	});
	const response = await fetch(`${sandbox.baseUrl}/api/upload_file?${query}`, {
		headers: { authorization: `Bearer ${sandbox.token}` },
	});
	return ((await response.json()) as { signedRequest: string }).signedRequest;
}

/** A plain HTTP PUT of a stream or buffer, the way any client without n8n would send it. */
function put(url: string, body: NodeJS.ReadableStream | Buffer, size: number): Promise<number> {
	return new Promise((resolve, reject) => {
		const outgoing = request(
			url,
			{ method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': size } },
			(response) => {
				response.resume();
				response.on('end', () => resolve(response.statusCode ?? 0));
			},
		);
		outgoing.on('error', reject);
		if (Buffer.isBuffer(body)) outgoing.end(body);
		else body.pipe(outgoing);
	});
}

/**
 * Uploads the file one way and measures it: through the node in n8n's engine from filesystem-mode binary data,
 * as a naive client that reads the whole file first, or as a plain streaming PUT (the machine's limit).
 */
export async function measureUpload(way: UploadWay, path: string): Promise<Measurement<{ requests: number }>> {
	const sandbox = await Sandbox.start();
	const { size } = await stat(path);
	try {
		// Every way starts from the same state: the file copied into n8n's binary store as a Read File node would,
		// and the disk's write-back finished, so no way pays for an earlier copy still being flushed.
		const binary = await storeBinary({ path }, { fileName: 'bench.bin', mimeType: 'application/octet-stream' });
		execFileSync('sync');
		if (way === 'node') {
			const measured = await measure(async () => {
				const run = await runNode({
					parameters: { resource: 'file', operation: 'upload' },
					credentials: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token },
					items: [{ json: {}, binary: { data: binary } }],
				});
				if (run.error || run.items[0]?.json.fileSize !== size) throw new Error(`Upload failed: ${run.error?.message}`);
				return { requests: sandbox.requests.length + sandbox.storage.requests.length };
			});
			return measured;
		}
		const address = await signedAddress(sandbox, size);
		return await measure(async () => {
			const body = way === 'buffered' ? await readFile(path) : createReadStream(path);
			const status = await put(address, body, size);
			if (status !== 200) throw new Error(`Storage answered ${status}`);
			return { requests: 2 };
		});
	} finally {
		await sandbox.stop();
	}
}
