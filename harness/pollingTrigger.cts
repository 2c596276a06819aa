import './environment.cts';

import { PollContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { ServiceCredentials } from './workflowRunner.cts';
import { localAdditionalData, nodeTypes, POLL_TRIGGER_NODE_TYPE } from './workflowRunner.cts';

/** Static data as n8n's database keeps it: JSON. */
const asSaved = (data: IDataObject) => JSON.parse(JSON.stringify(data)) as IDataObject;

export const POLL_TRIGGER_NODE_NAME = 'Product Registration Poll Trigger';

/** What one poll did: the items it emitted (none when it returned null), or the error n8n would show. */
export interface PollOutcome {
	items: INodeExecutionData[];
	error?: Error;
}

/**
 * The Product Registration Poll Trigger of an active workflow, run as n8n runs it (n8n-core's ActiveWorkflows and
 * n8n's ActiveWorkflowManager): one PollContext per activation, a poll at activation whose error fails the activation,
 * then scheduled polls whose errors become error executions. The workflow's static data lives in memory between polls
 * and is saved to "the database" only after the activation and with each poll that emits; a restart builds the
 * workflow anew from what was saved.
 */
export class PollingTrigger {
	/** The static data as n8n's database holds it. */
	private saved: IDataObject = {};

	/** n8n 2.x's poll budget (its durable scheduler's poll timeout), in ms; none, as in n8n 1.x, when undefined. */
	budgetMs: number | undefined;

	private workflow!: Workflow;

	private context!: PollContext;

	/** `typeVersion`: 1, as nodes added before 0.7 are saved; 1.1 for one added since. */
	constructor(
		private parameters: INodeParameters,
		private readonly credentials: ServiceCredentials,
		private readonly typeVersion = 1,
	) {}

	private get node(): INode {
		return {
			id: 'poll-trigger',
			name: POLL_TRIGGER_NODE_NAME,
			type: POLL_TRIGGER_NODE_TYPE,
			typeVersion: this.typeVersion,
			position: [0, 0],
			parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...this.parameters },
			credentials: { productRegistrationApi: { id: 'local-credential', name: 'Product Registration account' } },
		};
	}

	private build(
		mode: WorkflowExecuteMode,
		activation: 'activate' | 'init' | 'update' | 'manual',
	): { workflow: Workflow; context: PollContext } {
		const workflow = new Workflow({
			id: 'local-workflow',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: asSaved(this.saved),
		});
		const node = workflow.getNode(POLL_TRIGGER_NODE_NAME)!;
		const context = new PollContext(workflow, node, localAdditionalData(this.credentials), mode, activation);
		// n8n-core 2.x hands the budget to its PollContext; 1.x has none (here: while budgetMs is undefined).
		Object.assign(context, { getPollBudgetMs: () => this.budgetMs });
		return { workflow, context };
	}

	private async runPoll(): Promise<INodeExecutionData[]> {
		const nodeType = nodeTypes.getByNameAndVersion(POLL_TRIGGER_NODE_TYPE, this.typeVersion) as INodeType;
		const emitted = await nodeType.poll!.call(this.context);
		if (emitted !== null) this.save();
		return emitted?.[0] ?? [];
	}

	private save(): void {
		const { __dataChanged, ...data } = this.workflow.staticData as IDataObject;
		if (__dataChanged === true) this.saved = asSaved(data);
	}

	/** Activates the workflow (for the first time, or as n8n starts again: `init`): the activation's poll, then a save. */
	async activate(activation: 'activate' | 'init' | 'update' = 'activate'): Promise<INodeExecutionData[]> {
		({ workflow: this.workflow, context: this.context } = this.build('trigger', activation));
		const items = await this.runPoll();
		this.save();
		return items;
	}

	/** The user changes the node's parameters and saves the active workflow: n8n activates it again, its state kept. */
	async edit(parameters: INodeParameters): Promise<INodeExecutionData[]> {
		this.parameters = { ...this.parameters, ...parameters };
		return await this.activate('update');
	}

	/** n8n stops and starts again: what was not saved is gone. */
	async restart(): Promise<INodeExecutionData[]> {
		return await this.activate('init');
	}

	/** A poll at one of the Poll Times. */
	async poll(): Promise<PollOutcome> {
		try {
			return { items: await this.runPoll() };
		} catch (error) {
			return { items: [], error: error as Error };
		}
	}

	/** The editor's Fetch Test Event: a manual poll of an inactive copy of the workflow. */
	async fetchTestEvent(): Promise<INodeExecutionData[]> {
		const { context } = this.build('manual', 'manual');
		const nodeType = nodeTypes.getByNameAndVersion(POLL_TRIGGER_NODE_TYPE, this.typeVersion) as INodeType;
		return (await nodeType.poll!.call(context))?.[0] ?? [];
	}

	/** The trigger's static data as saved: what it remembers between polls. */
	get savedState(): IDataObject {
		return (asSaved(this.saved)[`node:${POLL_TRIGGER_NODE_NAME}`] ?? {}) as IDataObject;
	}
}
