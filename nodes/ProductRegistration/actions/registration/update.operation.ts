import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { asObject } from '../../../shared/transport/answerShapes';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { alphabetical } from '../../../shared/optionsCollection';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { simplifyProperty } from '../toolAnswer';
import { filledByModelAsTool, toolAnswerProperty, toolDescriptionProperty } from '../toolFields';
import {
	coreFieldProperties,
	coreFieldArguments,
	extraFieldProperties,
	readCoreFields,
	readExtraFields,
} from './registrationFields';
import {
	BY_REGISTRATION_ID,
	readRegistrationId,
	registrationIdArgument,
	registrationIdProperty,
	registrationTarget,
} from './registrationLocator';
import { filesProperty, readFormFiles, refuseTakenFields, uploadFormFiles } from './registrationFiles';

const properties: INodeProperties[] = [
	registrationIdProperty,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: alphabetical([...coreFieldProperties, ...extraFieldProperties, filesProperty]),
	},
	simplifyProperty,
	optionsCollection([concurrencyOption]),
];

export const description = displayFor('registration', 'update', [
	toolDescriptionProperty(
		`Change the details of one registration in the shop's product-registration app, ${BY_REGISTRATION_ID}: its product name, customer email address, customer name, serial numbers or purchase date. Give only what changes; what is left out stays as it is. Answers with the registration as changed.`,
	),
	...filledByModelAsTool(properties, {
		registrationId: registrationIdArgument,
		...Object.fromEntries(
			Object.entries(coreFieldArguments([], 'Leave out to keep it as it is.')).map(([name, argument]) => [
				`updateFields.${name}`,
				argument,
			]),
		),
	}),
	toolAnswerProperty,
]);

export const runs = 'perItem';

export const answers = 'registrations';

/**
 * PUT /api/registrations/:regId with the changed fields; extra form fields go under `fields`, as the API wants on
 * change, and so do the URLs of the files uploaded first.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const registrationId = readRegistrationId(input);
	const updateFields = input.collection('updateFields');
	const registration = readCoreFields(input, updateFields, [], (key) => `updateFields.${key}`);
	const extra = readExtraFields(input, updateFields);
	const files = readFormFiles(input, updateFields.files);
	refuseTakenFields(input, files, extra);
	if (Object.keys(registration).length === 0 && Object.keys(extra).length === 0 && files.length === 0) {
		throw input.error(
			input.asTool
				? 'Nothing to update: give at least one of the details to change'
				: "Nothing to update: add at least one field under 'Update Fields'",
		);
	}

	const uploaded = await uploadFormFiles.call(this, files, itemIndex);
	const fields = { ...extra, ...uploaded.fields };
	if (Object.keys(fields).length > 0) registration.fields = fields;
	const { body } = await serviceRequest.call(
		this,
		{
			method: 'PUT',
			...registrationTarget(registrationId),
			body: { registration },
		},
		requestFor(this, itemIndex),
	);
	// The answer of an update is not specified; without a body, report what was changed.
	const result = body === undefined || body === '' ? { id: registrationId, ...registration } : asObject(body);
	return uploaded.sent.length === 0 ? result : { ...result, files: uploaded.sent };
}
