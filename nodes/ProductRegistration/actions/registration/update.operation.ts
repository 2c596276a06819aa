import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../helpers/itemInput';
import { asObject } from '../../helpers/values';
import { serviceRequest } from '../../transport/serviceRequest';
import { alphabetical, concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import {
	coreFieldProperties,
	extraFieldProperties,
	readCoreFields,
	readExtraFields,
	readRegistrationId,
	registrationIdProperty,
	registrationTarget,
} from './registrationFields';

const properties: INodeProperties[] = [
	registrationIdProperty,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: alphabetical([...coreFieldProperties, ...extraFieldProperties]),
	},
	optionsCollection([concurrencyOption]),
];

export const description = displayFor('registration', 'update', properties);

export const runs = 'perItem';

/** PUT /api/registrations/:regId with the changed fields; extra form fields go under `fields`, as the API wants on change. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const registrationId = readRegistrationId(input);
	const updateFields = input.collection('updateFields');
	const registration = readCoreFields(input, updateFields);
	const extra = readExtraFields(input, updateFields);
	if (Object.keys(extra).length > 0) registration.fields = extra;
	if (Object.keys(registration).length === 0) {
		throw input.error(`Nothing to update for item ${itemIndex}: add at least one field under Update Fields`);
	}

	const { body } = await serviceRequest.call(
		this,
		{
			method: 'PUT',
			...registrationTarget(registrationId),
			body: { registration },
		},
		itemIndex,
	);
	// The answer of an update is not specified; without a body, report what was changed.
	return body === undefined || body === '' ? { id: registrationId, ...registration } : asObject(body);
}
