import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { requiredText } from '../../helpers/values';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { toolDescriptionProperty } from '../toolFields';
import { prepareUpload, upload } from './fileUpload';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Data Field Name',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field containing the file to upload',
		description: 'The binary field of the input item that holds the file, e.g. a receipt image',
	},
	optionsCollection([
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			placeholder: 'e.g. receipt-1001.pdf',
			description: "Name to store the file under, instead of the binary's own file name",
		},
		{
			displayName: 'File Type',
			name: 'fileType',
			type: 'string',
			default: '',
			placeholder: 'e.g. application/pdf',
			description: "Media type to store the file as, instead of the binary's own",
		},
		concurrencyOption,
	]),
];

export const description = displayFor('file', 'upload', [
	toolDescriptionProperty(
		"Upload the file the workflow hands this step (in its binary field) to the storage of the shop's product-registration app. Answers with the file's url, name, type and size in bytes; the url can be attached to a registration's status change. A model cannot send the file itself.",
	),
	...properties,
]);

export const runs = 'perItem';

/** Uploads the item's file and returns its final address, ready to attach to a status as an asset URL. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const binaryPropertyName = input.parameter('binaryPropertyName', "'Input Data Field Name'", requiredText);
	const options = input.collection('options');
	const prepared = prepareUpload.call(this, input, binaryPropertyName, {
		fileName: options.fileName as string | undefined,
		fileType: options.fileType as string | undefined,
	});
	return { ...(await upload.call(this, prepared, itemIndex)) };
}
