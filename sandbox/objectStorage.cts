import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import S3rver from 's3rver';

/** s3rver's built-in account; it verifies V2 query signatures made with this key pair. */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';
export const BUCKET = 'receipts';

export interface StorageRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
}

/** S3 encodes key segments per RFC 3986 in the canonical resource it signs. */
function encodeRfc3986(text: string): string {
	return encodeURIComponent(text).replace(
		/[!'()*]/g,
		(char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
	);
}

function encodeKey(key: string): string {
	return key.split('/').map(encodeRfc3986).join('/');
}

/**
 * A real S3-compatible object storage on 127.0.0.1 (s3rver) that checks pre-signed V2 signatures — including the
 * signed Content-Type and the expiry — and refuses a request that also carries an Authorization header.
 */
export class ObjectStorage {
	/** Every request the storage received, headers included, so tests can prove what was (not) sent. */
	readonly requests: StorageRequest[] = [];

	/** When set, the next PUT's connection is cut once this many bytes of it have arrived. */
	cutNextPutAfterBytes: number | undefined;

	private constructor(
		private readonly server: S3rver,
		private readonly directory: string,
		readonly url: string,
	) {}

	static async start(port = 0): Promise<ObjectStorage> {
		const directory = await mkdtemp(join(tmpdir(), 'product-registration-storage-'));
		const server = new S3rver({
			address: '127.0.0.1',
			port,
			silent: true,
			directory,
			configureBuckets: [{ name: BUCKET, configs: [] }],
		});
		const address = await server.run();
		const storage = new ObjectStorage(server, directory, `http://127.0.0.1:${address.port}`);
		server.httpServer.prependListener('request', (request) => {
			storage.requests.push({
				method: request.method ?? '',
				path: request.url ?? '',
				headers: request.headers,
			});
			const cutAfter = storage.cutNextPutAfterBytes;
			if (request.method === 'PUT' && cutAfter !== undefined) {
				storage.cutNextPutAfterBytes = undefined;
				let received = 0;
				request.on('data', (chunk: Buffer) => {
					received += chunk.length;
					if (received >= cutAfter) request.socket.destroy();
				});
			}
		});
		return storage;
	}

	reset(): void {
		this.requests.length = 0;
		this.cutNextPutAfterBytes = undefined;
	}

	/**
	 * A new object key for an upload, unique so two uploads of "receipt.pdf" never overwrite each other. The name is
	 * made safe as a single path part of bounded length, as storage keys (and this storage's files) need.
	 */
	newKey(fileName: string): string {
		const withoutSeparators = [...fileName].map((char) => (char < ' ' || char === '/' || char === '\\' ? '_' : char));
		const safeName = withoutSeparators.join('').replace(/^\.+$/, '_').slice(-200) || '_';
		return `uploads/${randomBytes(8).toString('hex')}/${safeName}`;
	}

	/** The address of an object once it is stored (what the service answers as `url`). */
	objectUrl(key: string): string {
		return `${this.url}/${BUCKET}/${encodeKey(key)}`;
	}

	/** A pre-signed PUT address for `key`, valid only with exactly this Content-Type until `expiresAt`. */
	signPut(key: string, contentType: string, expiresAt: Date): string {
		const expires = Math.floor(expiresAt.getTime() / 1000);
		const stringToSign = `PUT\n\n${contentType}\n${expires}\n/${BUCKET}/${encodeKey(key)}`;
		const signature = createHmac('sha1', SECRET_ACCESS_KEY).update(stringToSign, 'utf8').digest('base64');
		const query = new URLSearchParams({
			AWSAccessKeyId: ACCESS_KEY_ID,
			Expires: String(expires),
			Signature: signature,
		});
		return `${this.objectUrl(key)}?${query.toString()}`;
	}

	/** The stored bytes of an object, fetched with a plain GET as any client of the file URL would. */
	async readObject(key: string): Promise<Buffer> {
		const response = await fetch(this.objectUrl(key));
		if (!response.ok) throw new Error(`Object ${key} is not stored (HTTP ${response.status})`);
		return Buffer.from(await response.arrayBuffer());
	}

	async stop(): Promise<void> {
		this.server.httpServer.closeAllConnections();
		await this.server.close();
		await rm(this.directory, { recursive: true, force: true });
	}
}
