import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { comparableName } from '../../helpers/fieldMatching';
import type { ItemInput } from '../../input/itemInput';
import { forItem } from '../../input/itemInput';
import { optionalText, requiredText } from '../../helpers/values';
import type { PreparedUpload, UploadedFile } from '../file/fileUpload';
import { prepareUpload, upload } from '../file/fileUpload';
import { isReservedKey } from './registrationFields';

/**
 * Files sent as fields of a registration form: the customer's receipt, a photo of the product. A file of the input
 * item is uploaded in the API's two steps (as File: Upload does) and its URL sent under a form field's key, as the
 * service's API says an uploaded file's URL "can be used as a receipt". Create and Update both take them.
 */

/** A file of an item, checked, and the form field that will receive its URL. */
export interface FormFile {
	binaryPropertyName: string;
	fieldName: string;
	prepared: PreparedUpload;
}

/** What an output item says of each file it sent: which form field received which upload. */
export type SentFile = { field: string } & UploadedFile;

/** The rows of binary field → form field; the same shape in Create, in its Options (Map Automatically) and in Update. */
export const filesProperty: INodeProperties = {
	displayName: 'Files to Upload',
	name: 'files',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add File',
	default: {},
	description:
		"Files of the input item to upload first; each file's URL is sent as a field of the registration form, e.g. the receipt",
	options: [
		{
			displayName: 'File',
			name: 'file',
			values: [
				{
					displayName: 'Input Data Field Name',
					name: 'binaryPropertyName',
					type: 'string',
					default: 'data',
					placeholder: 'e.g. Receipt',
					description: 'The binary field of the input item that holds the file. Defaults to data.',
				},
				{
					displayName: 'Form Field',
					name: 'fieldName',
					type: 'string',
					default: '',
					placeholder: 'e.g. receipt',
					description:
						"The key of the form field that receives the file's URL, as in the form's design. Empty: the binary field's own name.",
				},
			],
		},
	],
};

/** Map Automatically's switch: every file of the item, each under its own name. */
export const uploadEveryFileOption: INodeProperties = {
	displayName: 'Upload Every File',
	name: 'uploadEveryFile',
	type: 'boolean',
	default: false,
	description:
		"Whether to upload every binary field of the input item and send each file's URL as the form field of the same name. Rows of Files to Upload name other form fields. Defaults to false.",
};

/**
 * The files an item sends: the rows of `files` and, with `everyFile`, every other binary field of the item under its
 * own name. Each is checked now — the item holds the binary field, and the form field is a field of its own — so that
 * bad input fails before anything is uploaded or sent.
 */
export function readFormFiles(input: ItemInput, files: unknown, everyFile = false): FormFile[] {
	const rows = ((files as IDataObject | undefined)?.file as IDataObject[] | undefined) ?? [];
	const fieldOf = new Map<string, string>();
	rows.forEach((row, rowIndex) => {
		const binaryPropertyName = input.convert(
			row.binaryPropertyName,
			`'Input Data Field Name' of file ${rowIndex + 1}`,
			requiredText,
		);
		const fieldName = input.convert(row.fieldName, `'Form Field' of file ${rowIndex + 1}`, optionalText);
		fieldOf.set(binaryPropertyName, fieldName ?? binaryPropertyName);
	});
	if (everyFile) {
		for (const name of Object.keys(input.context.getInputData()[input.itemIndex]?.binary ?? {})) {
			if (!fieldOf.has(name)) fieldOf.set(name, name);
		}
	}
	const formFiles = [...fieldOf].map(([binaryPropertyName, fieldName]) => ({
		binaryPropertyName,
		fieldName,
		prepared: prepareUpload.call(input.context, input, binaryPropertyName),
	}));
	const fieldNames = formFiles.map(({ fieldName }) => fieldName);
	const repeated = fieldNames.find((name, index) => fieldNames.indexOf(name) !== index);
	if (repeated !== undefined) {
		throw input.error(`Two files would be sent to the form field '${repeated}'; give each its own`);
	}
	return formFiles;
}

/**
 * Refuses a file whose form field already holds a value of the item (`taken`: the registration's fields so far) or
 * is a field the API reads itself: its URL would replace it.
 */
export function refuseTakenFields(input: ItemInput, files: FormFile[], taken: IDataObject): void {
	for (const { fieldName } of files) {
		if (isReservedKey(fieldName)) {
			throw input.error(
				`The form field '${fieldName}' is a standard field of the registration; send the file to a field of the form's own`,
			);
		}
		if (fieldName in taken) {
			throw input.error(`The item sends the form field '${fieldName}' twice: as a file and as a value`);
		}
	}
}

/** Files an entry of Create sends once it is known to be created or updated (the entries live as long as the run). */
const waiting = new WeakMap<IDataObject, FormFile[]>();
const sentFor = new WeakMap<IDataObject, SentFile[]>();

export function holdFiles(entry: IDataObject, files: FormFile[]): void {
	if (files.length > 0) waiting.set(entry, files);
}

export function hasFiles(entry: IDataObject): boolean {
	return waiting.has(entry);
}

/** Uploads the files an entry holds and puts their URLs into it, under their form fields. */
export async function uploadFilesOf(this: IExecuteFunctions, entry: IDataObject, itemIndex: number): Promise<void> {
	const files = waiting.get(entry);
	if (files === undefined) return;
	const { fields, sent } = await uploadFormFiles.call(this, files, itemIndex);
	Object.assign(entry, fields);
	sentFor.set(entry, sent);
}

/** An output item's JSON, with the files its entry sent. */
export function withFilesSent(json: IDataObject, entry: IDataObject): IDataObject {
	const sent = sentFor.get(entry);
	return sent === undefined ? json : { ...json, files: sent };
}

/** Whether a key of the item (a Form Trigger writes each file's name and size under its field's label) describes one of these files. */
export function describesFile(key: string, files: FormFile[]): boolean {
	return files.some(({ binaryPropertyName }) => comparableName(binaryPropertyName) === comparableName(key));
}

/**
 * Uploads an item's files one after another and returns the form fields that receive their URLs. A file that cannot
 * be uploaded fails its item, naming the binary field, so that no registration goes out without its file.
 */
export async function uploadFormFiles(
	this: IExecuteFunctions,
	files: FormFile[],
	itemIndex: number,
): Promise<{ fields: IDataObject; sent: SentFile[] }> {
	const fields: IDataObject = {};
	const sent: SentFile[] = [];
	for (const { binaryPropertyName, fieldName, prepared } of files) {
		try {
			const uploaded = await upload.call(this, prepared, itemIndex);
			fields[fieldName] = uploaded.url;
			sent.push({ field: fieldName, ...uploaded });
		} catch (error) {
			const cause = error as NodeApiError;
			const message = forItem(
				`The file in the binary field '${binaryPropertyName}' could not be uploaded, so nothing was sent for it: ${cause.message}`,
				itemIndex,
			);
			throw new NodeApiError(this.getNode(), { message } as JsonObject, {
				message,
				description: cause.description ?? undefined,
				httpCode: cause.httpCode ?? undefined,
				itemIndex,
			});
		}
	}
	return { fields, sent };
}
