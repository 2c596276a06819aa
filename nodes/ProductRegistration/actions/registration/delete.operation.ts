import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { serviceRequest } from '../../transport/serviceRequest';
import { displayFor } from '../displayFor';
import { ItemInput } from '../itemInput';
import { concurrencyOption, optionsCollection } from '../requestOptions';
import { readRegistrationId, registrationIdProperty, registrationTarget } from './registrationFields';

export const description = displayFor('registration', 'delete', [
	registrationIdProperty,
	optionsCollection([concurrencyOption]),
]);

/** DELETE /api/registrations/:regId; a 200 means it is gone. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const registrationId = readRegistrationId(new ItemInput(this, itemIndex));
	await serviceRequest.call(this, { method: 'DELETE', ...registrationTarget(registrationId) }, itemIndex);
	return { deleted: true, registrationId };
}
