import type { INodeExecutionData } from 'n8n-workflow';

import { BUCKET } from '../sandbox/objectStorage.cts';
import type { Sandbox } from '../sandbox/service.cts';

/** A small PDF, as a form's receipt upload gives it. */
export const inlineReceipt = Buffer.from('%PDF-1.4\nreceipt of order 1001\n%%EOF\n');

/** An input item holding a file inline (base64), as n8n keeps small binaries by default. */
export function inlineItem(bytes: Buffer, fileName = 'receipt.pdf', mimeType = 'application/pdf'): INodeExecutionData {
	return { json: { order: 1001 }, binary: { data: { data: bytes.toString('base64'), fileName, mimeType } } };
}

/** The key the sandbox's storage stored a file under, read back from its public URL. */
export function storedKey(url: string): string {
	return decodeURIComponent(new URL(url).pathname.slice(`/${BUCKET}/`.length));
}

/** The uploads the storage received. */
export const storagePuts = (sandbox: Sandbox) => sandbox.storage.requests.filter((request) => request.method === 'PUT');
