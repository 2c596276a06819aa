import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ItemInput } from '../../input/itemInput';
import { InvalidValueError, optionalText, quote } from '../../helpers/values';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import type { BinaryStream } from '../../../shared/transport/storageUpload';
import { putToStorage } from '../../../shared/transport/storageUpload';

export interface UploadedFile {
	url: string;
	fileName: string;
	fileType: string;
	fileSize: number;
}

export interface UploadOverrides {
	fileName?: string;
	fileType?: string;
}

function mediaType(value: unknown): string | undefined {
	const text = optionalText(value);
	if (text !== undefined && !/^[\w.+-]+\/[\w.+-]+$/.test(text)) {
		throw new InvalidValueError(`is not a media type like application/pdf or image/jpeg: ${quote(text)}`);
	}
	return text;
}

/** A file of an item, checked and named, ready to upload. */
export interface PreparedUpload {
	binary: IBinaryData;
	fileName: string;
	fileType: string;
}

/** Checks that the item holds the binary field and settles the file's name and media type; sends nothing. */
export function prepareUpload(
	this: IExecuteFunctions,
	input: ItemInput,
	binaryPropertyName: string,
	overrides: UploadOverrides = {},
): PreparedUpload {
	const binary = this.helpers.assertBinaryData(input.itemIndex, binaryPropertyName);
	const fileType =
		input.convert(overrides.fileType, "'File Type' option", mediaType) ??
		input.convert(binary.mimeType, `media type of the binary field '${binaryPropertyName}'`, mediaType) ??
		'application/octet-stream';
	const fileName =
		input.convert(overrides.fileName, "'File Name' option", optionalText) ??
		optionalText(binary.fileName) ??
		`${binaryPropertyName}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;
	return { binary, fileName, fileType };
}

/**
 * Uploads a prepared file in the API's two steps: asks the service for a pre-signed address (GET /api/upload_file
 * with name, media type and size in bytes), then PUTs the bytes there. Binaries kept in n8n's filesystem or S3
 * store are streamed; only inline (base64) ones, small by nature, are read into memory.
 */
export async function upload(
	this: IExecuteFunctions,
	{ binary, fileName, fileType }: PreparedUpload,
	itemIndex: number,
): Promise<UploadedFile> {
	const inline = binary.id ? undefined : Buffer.from(binary.data, 'base64');
	const fileSize = inline?.length ?? (await this.helpers.getBinaryMetadata(binary.id!)).fileSize;
	const forItem = requestFor(this, itemIndex);

	const { body: answer } = await serviceRequest.call(
		this,
		{ method: 'GET', path: 'upload_file', qs: { fileName, fileType, fileSize } },
		forItem,
	);
	const { signedRequest, url } = (answer ?? {}) as IDataObject;
	if (typeof signedRequest !== 'string' || !/^https?:\/\//.test(signedRequest) || typeof url !== 'string') {
		const message = `The service's answer to the upload request for "${fileName}" holds no upload address (signedRequest) and file URL (url)`;
		throw new NodeApiError(this.getNode(), { message }, { message, itemIndex });
	}

	// Opened only now that there is somewhere to send it, so no failure before the PUT leaves a file handle open.
	const body: BinaryStream | Buffer = inline ?? (await this.helpers.getBinaryStream(binary.id!));
	const idleTimeoutMs = forItem.policy.timeoutMs;
	await putToStorage.call(this, { signedRequest, fileName, fileType, fileSize, body, idleTimeoutMs }, itemIndex);
	return { url, fileName, fileType, fileSize };
}
