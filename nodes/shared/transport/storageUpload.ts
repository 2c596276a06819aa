import type { IExecuteFunctions, IHttpRequestOptions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { describeStorageError } from './quotedAnswer';
import { connectionErrorCode, connectionProblem } from './connectionErrors';
import { cancelSignal } from './session';

/** The stream n8n's binary data store hands out (named without importing Node's stream module). */
export type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export interface StorageUpload {
	/** The pre-signed PUT address the service handed out. */
	signedRequest: string;
	fileName: string;
	/** The media type the address was signed for; sent as Content-Type. */
	fileType: string;
	fileSize: number;
	/** The bytes: a stream (filesystem/S3 binary data) or a buffer (inline binary data). */
	body: BinaryStream | Buffer;
	/**
	 * The longest the upload may go without a byte moving (the storage stopped reading): an idle limit, not a cap on
	 * the upload's total time, which for a 2 GB file on a slow line may be far longer than any request's.
	 */
	idleTimeoutMs: number;
}

/**
 * PUTs a file to a pre-signed storage address. The address is its own authorisation: this sends no Authorization
 * header and no token, only the bytes with the Content-Type that was announced and the Content-Length. Streams are
 * piped through, never held in memory. Stop aborts the upload at once; a storage that stops reading ends it after
 * the idle limit (n8n's request timeout counts idle time on the socket, which is what an upload needs).
 */
export async function putToStorage(this: IExecuteFunctions, upload: StorageUpload, itemIndex: number): Promise<void> {
	const node = this.getNode();
	const fail = (message: string, httpCode?: number) =>
		new NodeApiError(node, { message } as JsonObject, {
			message,
			description: `The file was sent straight to the object storage (${new URL(upload.signedRequest).origin}), not to the service.`,
			httpCode: httpCode === undefined ? undefined : String(httpCode),
			itemIndex,
		});

	const request: IHttpRequestOptions = {
		method: 'PUT',
		url: upload.signedRequest,
		headers: { 'Content-Type': upload.fileType, 'Content-Length': String(upload.fileSize) },
		body: upload.body as IHttpRequestOptions['body'],
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Following a redirect would make the HTTP client keep a copy of the whole body to replay it.
		disableFollowRedirect: true,
		encoding: 'text',
		timeout: upload.idleTimeoutMs,
		abortSignal: cancelSignal(this),
	};

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequest(request)) as IN8nHttpFullResponse;
	} catch (error) {
		const code = connectionErrorCode(error);
		const problem = cancelSignal(this)?.aborted
			? 'the execution was stopped'
			: code === 'ECONNABORTED' || code === 'ETIMEDOUT'
				? `the storage took no data for ${upload.idleTimeoutMs / 1000} seconds`
				: connectionProblem(code);
		throw fail(
			`Could not upload "${upload.fileName}" to the storage: ${problem} before the upload completed. The file is not stored; run the step again.`,
		);
	} finally {
		// The storage may answer (or the connection break) before reading the whole file: close it either way.
		if (!Buffer.isBuffer(upload.body)) upload.body.destroy();
	}
	if (response.statusCode >= 200 && response.statusCode < 300) return;

	const said = describeStorageError(response.body);
	throw fail(
		`Could not upload "${upload.fileName}" to the storage (HTTP ${response.statusCode})${said ? `: ${said}` : ''}. The upload address may have expired or been signed for another file type; run the step again to get a new one.`,
		response.statusCode,
	);
}
