import { ExecuteContext, LoadOptionsContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialType,
	IExecuteData,
	INode,
	INodeListSearchResult,
	INodeType,
	INodeTypes,
	IRunExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { ServiceCredentials } from './workflowRunner.cts';
import { localAdditionalData, nodeTypes, productRegistrationNode, PRODUCT_REGISTRATION_TYPE } from './workflowRunner.cts';

/**
 * What n8n's server runs for the editor outside an execution, on the same n8n-core classes: the credential's Test
 * button and a resource locator's list search.
 */

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * The credential's Test button, as n8n's credentials tester runs a `test.request`: a stand-in node whose only
 * parameter routes that request, run by n8n-core's RoutingNode with the credential's own authentication. A 2xx
 * answer is OK; any other status or a failed connection is an Error with the answer's status text or code.
 */
export async function testCredential(
	credentialType: ICredentialType,
	credentials: ServiceCredentials,
): Promise<CredentialTestResult> {
	const request = credentialType.test?.request;
	if (!request) throw new Error(`${credentialType.name} has no test request`);
	const testerType: INodeType = {
		description: {
			displayName: 'Credential test',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request } }],
		},
	};
	const testerTypes: INodeTypes = {
		getByName: () => testerType,
		getByNameAndVersion: () => testerType,
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'credential-test',
		name: 'Credential test',
		type: 'credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'local-credential', name: 'Product Registration account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: testerTypes });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		localAdditionalData(credentials),
		'internal',
		{ resultData: { runData: {} } } as IRunExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, testerType, {
		id: 'local-credential',
		name: 'Product Registration account',
		type: credentialType.name,
		data: { ...credentials },
	});
	try {
		await routingNode.runNode();
		return { status: 'OK', message: 'Connection successful!' };
	} catch (error) {
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }).cause;
		if (cause?.response) {
			return {
				status: 'Error',
				message: cause.response.statusText || `Received HTTP status code: ${cause.response.status}`,
			};
		}
		return { status: 'Error', message: cause?.code ?? (error as Error).message };
	}
}

/** A resource locator's "From List" search, as the editor asks n8n's server for it while the user types. */
export async function searchList(
	method: string,
	credentials: ServiceCredentials,
	filter?: string,
	parameters: INode['parameters'] = {},
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const node = productRegistrationNode('Product Registration', parameters);
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new LoadOptionsContext(workflow, node, localAdditionalData(credentials), 'registrationId');
	const nodeType = nodeTypes.getByNameAndVersion(PRODUCT_REGISTRATION_TYPE, 1) as INodeType;
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`The node has no list search method "${method}"`);
	return await search.call(context, filter, paginationToken);
}
