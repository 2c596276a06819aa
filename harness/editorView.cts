import { join } from 'node:path';
import { DirectoryLoader } from 'n8n-core';
import type {
	ICredentialType,
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { asToolType } from './toolType.cts';

/**
 * The node as n8n's editor sees it: the *built* descriptions from dist/ (what a user installs), resolved with
 * n8n-workflow's own NodeHelpers — which parameters show for the values set, which defaults get stored, which
 * issues the editor marks. What NodeHelpers does not check but the editor does (a stored value that is not one of
 * the offered options shows "value not supported") is checked here.
 */

const dist = join(__dirname, '..', 'dist');

/** What n8n's loader adds to a node type it loads: Poll Times to a polling trigger, among others. */
const applySpecialNodeParameters = (
	DirectoryLoader.prototype as unknown as { applySpecialNodeParameters(nodeType: INodeType): void }
).applySpecialNodeParameters;

function loadBuilt<T>(file: string): T {
	const exported = require(join(dist, file)) as Record<string, new () => T>;
	const loaded = new (Object.values(exported)[0])();
	if ((loaded as INodeType).description?.properties) applySpecialNodeParameters(loaded as INodeType);
	return loaded;
}

export const built = {
	node: () => loadBuilt<INodeType>('nodes/ProductRegistration/ProductRegistration.node.js'),
	/** The node as n8n offers it to AI Agents and the MCP Server Trigger: Product Registration Tool. */
	toolNode: () => asToolType(built.node()),
	trigger: () => loadBuilt<INodeType>('nodes/ProductRegistrationTrigger/ProductRegistrationTrigger.node.js'),
	pollTrigger: () =>
		loadBuilt<INodeType>('nodes/ProductRegistrationPollTrigger/ProductRegistrationPollTrigger.node.js'),
	credential: () => loadBuilt<ICredentialType>('credentials/ProductRegistrationApi.credentials.js'),
	/** The webhook trigger's Shared Secret, from its version 2 on. */
	webhookCredential: () => loadBuilt<ICredentialType>('credentials/ProductRegistrationWebhookApi.credentials.js'),
	/** The operations the node can run, by resource: what the router finds in the resources' own lists. */
	runnableOperations: (): Record<string, string[]> => {
		const { resources } = require(join(dist, 'nodes/ProductRegistration/actions/router.js')) as {
			resources: Record<string, { operations: Record<string, unknown> }>;
		};
		return Object.fromEntries(
			Object.entries(resources).map(([resource, { operations }]) => [resource, Object.keys(operations).sort()]),
		);
	},
};

/** The node's versions, oldest first. */
export function versionsOf(description: INodeTypeDescription): number[] {
	return (Array.isArray(description.version) ? [...description.version] : [description.version]).sort((a, b) => a - b);
}

/** The version the editor gives a node added now: the default version, else the newest. */
export function newestVersion(description: INodeTypeDescription): number {
	return description.defaultVersion ?? versionsOf(description).pop()!;
}

/**
 * The parameters the editor stores for a node after the user set `values`: those values plus every shown default.
 * A node of `typeVersion` (by default the version a node added now gets; a saved workflow's node keeps its own).
 */
export function editorParameters(
	description: INodeTypeDescription,
	values: INodeParameters,
	typeVersion = newestVersion(description),
): INodeParameters {
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, { typeVersion }, description) ?? {};
}

/** The top-level parameters the editor shows for these stored parameters. */
export function shownProperties(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	typeVersion = newestVersion(description),
): INodeProperties[] {
	return description.properties.filter((property) =>
		NodeHelpers.displayParameter(parameters, property, { typeVersion }, description),
	);
}

/**
 * The credentials the editor asks a node for with these stored parameters, by type name: those whose displayOptions
 * show (n8n's editor decides with the same NodeHelpers.displayParameter).
 */
export function askedCredentials(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	typeVersion = newestVersion(description),
): string[] {
	return (description.credentials ?? [])
		.filter((credential) => NodeHelpers.displayParameter(parameters, credential, { typeVersion }, description))
		.map((credential) => credential.name);
}

/**
 * The options the editor's "Add Option" / "Add Field" list of a collection offers for these stored parameters, by
 * display name (an option's displayOptions may name top-level parameters as `/name`).
 */
export function offeredCollectionOptions(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	collection: string,
	typeVersion = newestVersion(description),
): string[] {
	const shown = shownProperties(description, parameters, typeVersion).find((property) => property.name === collection);
	return ((shown?.options ?? []) as INodeProperties[])
		.filter((option) => NodeHelpers.displayParameterPath(parameters, option, collection, { typeVersion }, description))
		.map((option) => option.displayName);
}

function optionValues(property: INodeProperties): unknown[] {
	return ((property.options ?? []) as INodePropertyOptions[]).map((option) => option.value);
}

/** The dropdown shown for `name` with these stored parameters (exactly one may show), and its option values. */
export function offeredValues(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	name: string,
	typeVersion = newestVersion(description),
): unknown[] {
	const shown = shownProperties(description, parameters, typeVersion).filter((property) => property.name === name);
	if (shown.length !== 1)
		throw new Error(`The editor shows ${shown.length} "${name}" parameters for ${JSON.stringify(parameters)}`);
	return optionValues(shown[0]);
}

/** Every resource/operation pair a user can pick: the Resource dropdown, then the Operation dropdown it shows. */
export function offeredOperations(
	description: INodeTypeDescription,
	typeVersion = newestVersion(description),
): Record<string, string[]> {
	const offered: Record<string, string[]> = {};
	for (const resource of offeredValues(description, editorParameters(description, {}, typeVersion), 'resource')) {
		const parameters = editorParameters(description, { resource: resource as string }, typeVersion);
		offered[resource as string] = offeredValues(description, parameters, 'operation', typeVersion) as string[];
	}
	return offered;
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/**
 * Stored values the editor would not accept: an options value that is not offered (unless the parameter allows
 * arbitrary values, as n8n's editor lets it: nodeSettingsUtils.ts, shouldSkipParamValidation), a key of a collection
 * that is no option of it, a resource locator mode that does not exist. Each finding is `path: what is wrong`.
 */
export function unsupportedValues(
	properties: INodeProperties[],
	values: INodeParameters,
	description: INodeTypeDescription,
	typeVersion = newestVersion(description),
	path = '',
	root: INodeParameters = values,
): string[] {
	const findings: string[] = [];
	const known = new Set(properties.map((property) => property.name));
	for (const key of Object.keys(values)) {
		if (!known.has(key)) findings.push(`${path}${key}: no such parameter`);
	}
	for (const property of properties) {
		if (!(property.name in values)) continue;
		if (path === '' && !NodeHelpers.displayParameter(values, property, { typeVersion }, description, root)) continue;
		const value = values[property.name];
		const at = `${path}${property.name}`;
		if (isExpression(value)) continue;
		if (
			property.type === 'options' &&
			!property.typeOptions?.loadOptionsMethod &&
			!property.allowArbitraryValues &&
			!optionValues(property).includes(value)
		) {
			findings.push(`${at}: ${JSON.stringify(value)} is not one of the offered values`);
		}
		if (property.type === 'multiOptions' && !property.typeOptions?.loadOptionsMethod) {
			for (const entry of Array.isArray(value) ? value : [value]) {
				if (!optionValues(property).includes(entry))
					findings.push(`${at}: ${JSON.stringify(entry)} is not one of the offered values`);
			}
		}
		if (property.type === 'resourceLocator' && value !== null && typeof value === 'object') {
			const mode = (value as { mode?: string }).mode;
			if (!(property.modes ?? []).some((candidate) => candidate.name === mode))
				findings.push(`${at}: no mode ${JSON.stringify(mode)}`);
		}
		if (property.type === 'collection' && value !== null && typeof value === 'object') {
			findings.push(
				...unsupportedValues(
					property.options as INodeProperties[],
					value as INodeParameters,
					description,
					typeVersion,
					`${at}.`,
					root,
				),
			);
		}
		if (property.type === 'fixedCollection' && value !== null && typeof value === 'object') {
			const groups = property.options as INodePropertyCollection[];
			for (const [groupName, groupValue] of Object.entries(value as INodeParameters)) {
				const group = groups.find((candidate) => candidate.name === groupName);
				if (!group) {
					findings.push(`${at}.${groupName}: no such group`);
					continue;
				}
				const rows = Array.isArray(groupValue) ? groupValue : [groupValue];
				rows.forEach((row, index) =>
					findings.push(
						...unsupportedValues(
							group.values,
							row as INodeParameters,
							description,
							typeVersion,
							`${at}.${groupName}[${index}].`,
							root,
						),
					),
				);
			}
		}
	}
	return findings;
}

/** Every parameter, with the parameters that sit beside it (where its displayOptions look), nested ones included. */
export function everyProperty(
	properties: INodeProperties[],
	path = '',
): Array<{ property: INodeProperties; siblings: INodeProperties[]; at: string }> {
	return properties.flatMap((property) => {
		const at = `${path}${property.name}`;
		const nested =
			property.type === 'collection'
				? everyProperty(property.options as INodeProperties[], `${at}.`)
				: property.type === 'fixedCollection'
					? (property.options as INodePropertyCollection[]).flatMap((group) =>
							everyProperty(group.values, `${at}.${group.name}.`),
						)
					: [];
		return [{ property, siblings: properties, at }, ...nested];
	});
}

/**
 * displayOptions that can never match: a condition on a parameter that does not exist, or on a value that
 * parameter cannot hold (not among its options, not true/false for a boolean).
 */
export function displayOptionProblems(description: INodeTypeDescription): string[] {
	const findings: string[] = [];
	for (const { property, siblings, at } of everyProperty(description.properties)) {
		for (const condition of [property.displayOptions?.show, property.displayOptions?.hide]) {
			for (const [key, wanted] of Object.entries(condition ?? {})) {
				if (key === '@version') continue;
				if (key === '@tool') {
					// Whether the node is used as a tool: n8n knows no other values.
					for (const value of (wanted ?? []) as unknown[]) {
						if (typeof value !== 'boolean')
							findings.push(`${at}: displayOptions want @tool = ${JSON.stringify(value)}`);
					}
					continue;
				}
				const name = key.replace(/^\//, '');
				const scope = key.startsWith('/') ? description.properties : siblings;
				const targets = scope.filter((candidate) => candidate.name === name);
				if (targets.length === 0) {
					findings.push(`${at}: displayOptions name "${key}", which does not exist`);
					continue;
				}
				const possible = targets.flatMap((target) =>
					target.type === 'options' ? optionValues(target) : target.type === 'boolean' ? [true, false] : undefined,
				);
				if (possible.includes(undefined)) continue;
				for (const value of (wanted ?? []) as unknown[]) {
					if (!possible.includes(value))
						findings.push(`${at}: displayOptions want ${key} = ${JSON.stringify(value)}, which it cannot be`);
				}
			}
		}
	}
	return findings;
}

/**
 * The states a user can reach, in each version of the node: each resource and operation, with every dropdown and
 * switch shown there flipped to each of its values once.
 */
function reachableStates(
	description: INodeTypeDescription,
): Array<{ parameters: INodeParameters; typeVersion: number }> {
	const states: Array<{ parameters: INodeParameters; typeVersion: number }> = [];
	for (const typeVersion of versionsOf(description)) {
		for (const [resource, operations] of Object.entries(offeredOperations(description, typeVersion))) {
			for (const operation of operations) {
				const base = editorParameters(description, { resource, operation }, typeVersion);
				states.push({ parameters: base, typeVersion });
				for (const property of shownProperties(description, base, typeVersion)) {
					const alternatives =
						property.type === 'boolean' ? [true, false] : property.type === 'options' ? optionValues(property) : [];
					for (const value of alternatives) {
						const parameters = editorParameters(
							description,
							{ ...base, [property.name]: value as string },
							typeVersion,
						);
						states.push({ parameters, typeVersion });
					}
				}
			}
		}
	}
	return states;
}

/**
 * Top-level parameters the editor never shows: in no state a user can reach is the parameter displayed — neither on
 * the node nor, when its tool's description is given (`<name>Tool`), on the node used as a tool.
 */
export function neverShownProperties(description: INodeTypeDescription, tool?: INodeTypeDescription): string[] {
	const views = [description, ...(tool ? [tool] : [])].map((view) => ({ view, states: reachableStates(view) }));
	return description.properties
		.filter(
			(property) =>
				!views.some(({ view, states }) =>
					states.some(({ parameters, typeVersion }) =>
						NodeHelpers.displayParameter(parameters, property, { typeVersion }, view),
					),
				),
		)
		.map((property) => `${property.name} (${JSON.stringify(property.displayOptions?.show ?? {})})`);
}

const DEFAULT_TYPES: Partial<Record<INodeProperties['type'], (value: unknown) => boolean>> = {
	string: (value) => typeof value === 'string',
	number: (value) => typeof value === 'number',
	boolean: (value) => typeof value === 'boolean',
	dateTime: (value) => typeof value === 'string',
	json: (value) => typeof value === 'string',
	notice: (value) => value === '',
	collection: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
	fixedCollection: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
	resourceLocator: (value) =>
		value !== null && typeof value === 'object' && 'mode' in (value as object) && 'value' in (value as object),
};

/** Parameters whose default does not have the type the editor stores for them (options defaults must be offered). */
export function defaultTypeProblems(description: INodeTypeDescription): string[] {
	return everyProperty(description.properties).flatMap(({ property, at }) => {
		if (property.type === 'options') {
			// A tool's copy of a dropdown may be filled by the model: its default is then an expression.
			return optionValues(property).includes(property.default) || isExpression(property.default)
				? []
				: [`${at}: default ${JSON.stringify(property.default)} is not offered`];
		}
		const check = DEFAULT_TYPES[property.type];
		// An expression (the model's argument of a tool's field, `={{ $fromAI(...) }}`) may fill any field.
		if (check === undefined || check(property.default) || isExpression(property.default)) return [];
		return [`${at}: default ${JSON.stringify(property.default)} does not suit a ${property.type}`];
	});
}

/** The parameters the editor marks with an issue (a required one left empty, ...) on this node, by name. */
export function parameterIssues(
	description: INodeTypeDescription,
	node: Pick<INode, 'parameters'> & Partial<INode>,
): string[] {
	const typeVersion = node.typeVersion ?? newestVersion(description);
	const fullNode: INode = {
		id: 'editor',
		name: 'Product Registration',
		type: description.name,
		position: [0, 0],
		...node,
		typeVersion,
		parameters: editorParameters(description, node.parameters, typeVersion),
	};
	const issues = NodeHelpers.getNodeParametersIssues(description.properties, fullNode, description);
	return Object.keys(issues?.parameters ?? {}).sort();
}

/** Collections whose options are not in alphabetical order, as n8n's guidelines want them in the Add Option list. */
export function unsortedCollections(description: INodeTypeDescription): string[] {
	return everyProperty(description.properties)
		.filter(({ property }) => property.type === 'collection')
		.filter(({ property }) => {
			const names = (property.options as INodeProperties[]).map((option) => option.displayName);
			return names.join('\n') !== [...names].sort((a, b) => a.localeCompare(b)).join('\n');
		})
		.map(
			({ at, property }) =>
				`${at}: ${(property.options as INodeProperties[]).map((option) => option.displayName).join(', ')}`,
		);
}

/**
 * Every placeholder the editor shows, a resource locator mode's included, as `path: placeholder`: the greyed text in
 * an empty field, or on a collection's "Add ..." button.
 */
export function placeholders(properties: INodeProperties[]): string[] {
	return everyProperty(properties).flatMap(({ property, at }) => [
		...(property.placeholder === undefined ? [] : [`${at}: ${property.placeholder}`]),
		...(property.modes ?? []).flatMap((mode) =>
			mode.placeholder === undefined ? [] : [`${at} (${mode.name}): ${mode.placeholder}`],
		),
	]);
}

/**
 * Tooltips longer than `most` words, as `path: N words`: the descriptions of parameters, of collection options and of
 * dropdown values. A notice's text is an info box, not a tooltip; a tool's description is written for a model.
 */
export function longTooltips(properties: INodeProperties[], most: number): string[] {
	const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
	return everyProperty(properties).flatMap(({ property, at }) => {
		if (property.type === 'notice' || property.name === 'toolDescription') return [];
		const values = (property.type === 'options' || property.type === 'multiOptions' ? property.options : []) as
			| INodePropertyOptions[]
			| undefined;
		const tooltips = [
			{ where: at, text: property.description },
			...(values ?? []).map((option) => ({ where: `${at} = ${String(option.value)}`, text: option.description })),
		];
		return tooltips
			.filter(({ text }) => text !== undefined && words(text) > most)
			.map(({ where, text }) => `${where}: ${words(text!)} words`);
	});
}
