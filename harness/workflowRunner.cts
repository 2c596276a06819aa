import './environment.cts';

import { Container } from '@n8n/di';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from 'n8n-core';
import { BinaryDataConfig, BinaryDataService, Credentials, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IBinaryData,
	IConnections,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
	Workflow as WorkflowType,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';

import { ProductRegistrationApi } from '../credentials/ProductRegistrationApi.credentials';
import { ProductRegistrationWebhookApi } from '../credentials/ProductRegistrationWebhookApi.credentials';
import { ProductRegistration } from '../nodes/ProductRegistration/ProductRegistration.node';
import { ProductRegistrationPollTrigger } from '../nodes/ProductRegistrationPollTrigger/ProductRegistrationPollTrigger.node';
import { ProductRegistrationTrigger } from '../nodes/ProductRegistrationTrigger/ProductRegistrationTrigger.node';
import { standInNodeTypes } from './standInNodes.cts';
import { asToolType } from './toolType.cts';

const NODE_NAME = 'Product Registration';
export const PRODUCT_REGISTRATION_TYPE = 'n8n-nodes-product-registration.productRegistration';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-product-registration.productRegistrationTrigger';
export const POLL_TRIGGER_NODE_TYPE = 'n8n-nodes-product-registration.productRegistrationPollTrigger';
/** The node as an AI tool: the type n8n makes of it for AI Agents and the MCP Server Trigger. */
export const PRODUCT_REGISTRATION_TOOL_TYPE = `${PRODUCT_REGISTRATION_TYPE}Tool`;

const nodeTypeClasses: Record<string, INodeType | IVersionedNodeType> = {
	[PRODUCT_REGISTRATION_TYPE]: new ProductRegistration(),
	[PRODUCT_REGISTRATION_TOOL_TYPE]: asToolType(new ProductRegistration()),
	[TRIGGER_NODE_TYPE]: new ProductRegistrationTrigger(),
	[POLL_TRIGGER_NODE_TYPE]: new ProductRegistrationPollTrigger(),
	...standInNodeTypes,
};

const credentialTypes: Record<string, ICredentialType> = {
	productRegistrationApi: new ProductRegistrationApi(),
	productRegistrationWebhookApi: new ProductRegistrationWebhookApi(),
};

export const nodeTypes: INodeTypes = {
	getByName: (type) => nodeTypeClasses[type],
	getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(nodeTypeClasses[type], version),
	getKnownTypes: () => ({}),
};

export interface ServiceCredentials {
	baseUrl: string;
	accessToken: string;
}

/** The data of credentials of other types than the service's (productRegistrationApi), by type. */
export type OtherCredentials = Record<string, ICredentialDataDecryptedObject>;

/** Resolves a credential-type value such as `=Bearer {{$credentials.accessToken}}` as n8n's server does. */
function resolveWithCredentials(
	workflow: WorkflowType,
	node: INode,
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	return workflow.expression.getSimpleParameterValue(
		node,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
}

/** How often credentials were read and generic authentication applied, since the last `resetCredentialUse()`. */
export const credentialUse = { reads: 0, authentications: 0 };

export function resetCredentialUse(): void {
	credentialUse.reads = 0;
	credentialUse.authentications = 0;
}

const CREDENTIAL_DETAILS = { id: 'local-credential', name: 'Product Registration account' };

let encryptionReady = false;

/**
 * n8n 2.x encrypts credentials with keys from a provider its server sets up; here the provider hands out the
 * instance's own key, as n8n does for a legacy (no-prefix) key. n8n 1.x encrypts with the instance key directly.
 */
function useInstanceKeyForCredentials(): void {
	if (encryptionReady || !('EncryptionKeyProxy' in core)) return;
	encryptionReady = true;
	const { Cipher, EncryptionKeyProxy, InstanceSettings } = core;
	const instanceKey = {
		id: 'instance',
		value: Container.get(Cipher).encryptDEKWithInstanceKey(Container.get(InstanceSettings).encryptionKey),
		algorithm: 'aes-256-cbc',
		format: 'no-prefix' as const,
	};
	Container.get(EncryptionKeyProxy).setProvider({
		getActiveKey: async () => instanceKey,
		getKeyById: async () => null,
		getLegacyKey: async () => instanceKey,
	});
}

/**
 * Hands the node its credential the way n8n's server does: kept encrypted with the instance's key (n8n-core's
 * Credentials and Cipher) and decrypted on every read, so a read costs what it costs in n8n, minus the database.
 * Applies the credential type's generic `authenticate` as n8n does: every value is an expression resolved against
 * `$credentials`, then merged into the request. Both are counted in `credentialUse`.
 */
class LocalCredentialsHelper extends ICredentialsHelper {
	/** Each type's credential, encrypted once. */
	private readonly encrypted = new Map<string, Promise<string>>();

	constructor(
		private readonly credentials: ServiceCredentials,
		private readonly others: OtherCredentials = {},
	) {
		super();
	}

	private encryptedData(type: string): Promise<string> {
		let encrypted = this.encrypted.get(type);
		if (!encrypted) {
			encrypted = (async () => {
				useInstanceKeyForCredentials();
				const stored = new Credentials(CREDENTIAL_DETAILS, type);
				await stored.setData({ ...(this.others[type] ?? this.credentials) });
				return stored.getDataToSave().data as string;
			})();
			this.encrypted.set(type, encrypted);
		}
		return encrypted;
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		credentialUse.reads += 1;
		return await new Credentials<ICredentialDataDecryptedObject>(
			CREDENTIAL_DETAILS,
			type,
			await this.encryptedData(type),
		).getData();
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: WorkflowType,
		node: INode,
	): Promise<IHttpRequestOptions> {
		credentialUse.authentications += 1;
		const authenticate = credentialTypes[typeName]?.authenticate;
		if (!authenticate || typeof authenticate === 'function' || authenticate.type !== 'generic') {
			throw new Error(`The test harness applies only generic authentication, not that of ${typeName}`);
		}
		const resolved: IHttpRequestOptions = { ...requestOptions };
		for (const part of ['headers', 'qs', 'body'] as const) {
			const values = authenticate.properties[part] as IDataObject | undefined;
			if (!values) continue;
			const target = { ...((resolved[part] as IDataObject | undefined) ?? {}) };
			for (const [key, value] of Object.entries(values)) {
				target[key] = resolveWithCredentials(workflow, node, value, credentials) as string;
			}
			resolved[part] = target;
		}
		return resolved;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('Not used by the node');
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}
}

/** The binary data store's folder starts with this, so tests can tell its files among the open ones. */
export const BINARY_STORE_PREFIX = 'product-registration-binary-';

let binaryDataReady: Promise<void> | undefined;

/**
 * Puts n8n's binary data store in filesystem mode, as production instances run it: binaries get an `id` and are
 * read back as streams, not as inline base64. Items given inline (base64 `data`, no `id`) stay inline.
 */
async function useFilesystemBinaryData(): Promise<void> {
	binaryDataReady ??= (async () => {
		const config = Container.get(BinaryDataConfig);
		config.mode = 'filesystem';
		config.localStoragePath = mkdtempSync(join(tmpdir(), BINARY_STORE_PREFIX));
		await Container.get(BinaryDataService).init();
	})();
	await binaryDataReady;
}

/**
 * Puts a file into n8n's binary data store (filesystem mode) the way a Read File or HTTP Request node would, and
 * returns the binary data to place on an input item: it carries an `id`, not the bytes.
 */
export async function storeBinary(
	source: Buffer | { path: string },
	meta: { fileName: string; mimeType: string },
): Promise<IBinaryData> {
	await useFilesystemBinaryData();
	const location = { type: 'execution' as const, workflowId: 'local-workflow', executionId: 'local-execution' };
	const binary: IBinaryData = { data: '', fileName: meta.fileName, mimeType: meta.mimeType };
	const service = Container.get(BinaryDataService);
	return Buffer.isBuffer(source)
		? await service.store(location, source, binary)
		: await service.copyBinaryFile(location, binary, source.path);
}

export interface WorkflowDefinition {
	name?: string;
	nodes: INode[];
	connections: IConnections;
}

export interface RunWorkflowOptions {
	workflow: WorkflowDefinition;
	credentials: ServiceCredentials;
	/** The node the run starts at (a trigger or the first node) and the items it receives. */
	startNode: string;
	items?: INodeExecutionData[];
	/** When this settles, the execution is stopped as n8n's Stop button stops it (its cancel signal aborts). */
	stop?: Promise<unknown>;
	/**
	 * How n8n runs it: `manual` (the default) as from the editor; `trigger` as an active workflow started by its poll
	 * trigger, which then hands on the items it emitted.
	 */
	mode?: WorkflowExecuteMode;
}

export interface WorkflowRunResult {
	/** Each node's first output of its first run, by node name. */
	outputs: Record<string, INodeExecutionData[]>;
	/** The execution hints each node's first run added (shown above its output in the editor), by node name. */
	hints: Record<string, string[]>;
	/** Set when a node failed the execution (without Continue On Fail). */
	error?: IRun['data']['resultData']['error'];
}

/**
 * What n8n hands the engine besides the workflow: only what it touches while running these nodes. URLs must be
 * absolute (they are fed to `new URL()`). `extra` adds the execution's hooks, or a webhook call's request/response.
 */
export function localAdditionalData(
	credentials: ServiceCredentials,
	extra: Record<string, unknown> = {},
	others: OtherCredentials = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new LocalCredentialsHelper(credentials, others),
		executionId: 'local-execution',
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		currentNodeExecutionIndex: 0,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Code tasks are not used');
		},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** Runs a workflow through n8n's real engine (WorkflowExecute), as a manual execution, and returns what each node gave. */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRunResult> {
	await useFilesystemBinaryData();
	const { workflow: definition } = options;
	const workflowData = {
		id: 'local-workflow',
		name: definition.name ?? 'Product Registration workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		nodes: definition.nodes,
		connections: definition.connections,
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes });
	const startNode = workflow.getNode(options.startNode);
	if (!startNode) throw new Error(`The workflow has no node "${options.startNode}"`);

	const mode = options.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, 'local-execution', workflowData);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});

	const additionalData = localAdditionalData(options.credentials, { hooks });

	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: startNode, data: { main: [options.items ?? [{ json: {} }]] }, source: null } as IExecuteData,
			],
		},
	});
	const execution = new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(workflow);
	void options.stop?.then(() => execution.cancel());
	// A stopped execution reports its end through the hook and never settles; one that fails to start throws.
	const run = await Promise.race([finished, execution.then(async () => await finished)]);

	const outputs: Record<string, INodeExecutionData[]> = {};
	const hints: Record<string, string[]> = {};
	for (const [name, runs] of Object.entries(run.data.resultData.runData)) {
		outputs[name] = runs[0]?.data?.main?.[0] ?? [];
		hints[name] = (runs[0]?.hints ?? []).map((hint) => hint.message);
	}
	return { outputs, hints, error: run.data.resultData.error };
}

export interface RunNodeOptions {
	parameters: INodeParameters;
	credentials: ServiceCredentials;
	/** Input items; one empty item when not given (as after a manual trigger). */
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	stop?: Promise<unknown>;
	/**
	 * The node's version: 1 (the default) as workflows saved before 0.6 hold it, so that every test proves a saved
	 * workflow keeps its meaning; 1.1 as a node added now.
	 */
	typeVersion?: number;
}

export interface RunNodeResult {
	/** The node's first output, in order. */
	items: INodeExecutionData[];
	/** The execution hints the node added. */
	hints: string[];
	error?: WorkflowRunResult['error'];
}

/** A Product Registration node with these parameters and the credential, as the editor would save it. */
export function productRegistrationNode(
	name: string,
	parameters: INodeParameters,
	continueOnFail = false,
	typeVersion = 1,
): INode {
	return {
		id: name.replace(/\W+/g, '-').toLowerCase(),
		name,
		type: PRODUCT_REGISTRATION_TYPE,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: { productRegistrationApi: { id: 'local-credential', name: 'Product Registration account' } },
		...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
}

/** Runs one Product Registration node on the given items through the engine. */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const node = productRegistrationNode(NODE_NAME, options.parameters, options.continueOnFail, options.typeVersion);
	const { outputs, hints, error } = await runWorkflow({
		workflow: { nodes: [node], connections: {} },
		credentials: options.credentials,
		startNode: NODE_NAME,
		items: options.items,
		stop: options.stop,
	});
	return { items: outputs[NODE_NAME] ?? [], hints: hints[NODE_NAME] ?? [], error };
}

/** The run's error as a user meets it: its message and the input item it names. */
export function errorOf(result: RunNodeResult): { message?: string; itemIndex?: number } {
	return {
		message: result.error?.message,
		itemIndex: (result.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex,
	};
}
