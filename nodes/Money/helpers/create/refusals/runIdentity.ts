import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../../../api/values';
import type { OperationContext } from '../../../actions/node.type';
import { readReference } from '../input';
import { apiClientOf } from '../request/apiClient';

/**
 * What a run of the node is, for the Money API: the API client it sends to and each row's Business
 * Reference (docs/idempotency.md, "A run keeps its API client and Business References"). Recorded in
 * the node's execution context at the node's first run of each run index, before any request, and
 * binding for every later run of that run index in the execution: Retry On Fail and every Retry of
 * it. n8n starts each Retry from the retried execution's stored data, so a second Retry of an
 * execution finds only what its first run recorded, never what an earlier Retry of it sent: any run
 * that went to another client, or sent a row under another key, could pay what another Retry paid.
 */
const RUN_IDENTITY_KEY = 'moneyRunIdentity';

interface RunIdentity {
	client: string;
	/** By item index: the row's Business Reference, null when it has none. A row whose reference could not be read is left out. */
	references: Record<string, string | null>;
}

type Verdict = (itemIndex: number) => NodeOperationError;

const verdicts = new WeakMap<IExecuteFunctions, Promise<Verdict | undefined>>();
const LISTED_CHANGES = 5;

function referencesOf(context: IExecuteFunctions): Record<string, string | null> {
	const references: Record<string, string | null> = {};
	const count = context.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			const reading = readReference.call(context, itemIndex);
			references[itemIndex] = reading.kind === 'reference' ? reading.value : null;
		} catch {
			// an expression error: the item fails on its own
		}
	}
	return references;
}

function shown(reference: string | null): string {
	return reference === null ? 'none' : JSON.stringify(reference);
}

function recorded(nodeContext: IDataObject, runIndex: number): RunIdentity | undefined {
	const byRun = nodeContext[RUN_IDENTITY_KEY];
	if (!byRun || typeof byRun !== 'object' || Array.isArray(byRun)) return undefined;
	const identity = (byRun as IDataObject)[runIndex] as RunIdentity | undefined;
	return identity && typeof identity.client === 'string' ? identity : undefined;
}

function record(nodeContext: IDataObject, runIndex: number, identity: RunIdentity): void {
	const byRun = nodeContext[RUN_IDENTITY_KEY];
	const runs = byRun && typeof byRun === 'object' && !Array.isArray(byRun) ? (byRun as IDataObject) : {};
	runs[runIndex] = identity as unknown as IDataObject;
	nodeContext[RUN_IDENTITY_KEY] = runs;
}

async function verdictOf(context: IExecuteFunctions, resource: TransactionResource, operation: OperationContext): Promise<Verdict | undefined> {
	const now: RunIdentity = { client: apiClientOf((await operation.credential()).data ?? {}), references: referencesOf(context) };
	const nodeContext = context.getContext('node');
	const runIndex = context.getWorkflowDataProxy(0).$thisRunIndex;
	const first = recorded(nodeContext, runIndex);
	if (!first) {
		record(nodeContext, runIndex, now);
		return undefined;
	}
	const changes: string[] = [];
	const details: IDataObject = {};
	if (first.client !== now.client) {
		changes.push(`the credential now goes to the Money API ${now.client}, the run first went to ${first.client}`);
		details.api_client = { first: first.client, now: now.client };
	}
	const references = Object.keys(now.references)
		.filter((item) => item in first.references && first.references[item] !== now.references[item])
		.map((item) => ({ item: Number(item) + 1, first: first.references[item], now: now.references[item] }));
	const listed = references.slice(0, LISTED_CHANGES).map(({ item, first: was, now: is }) => `item ${item}'s Business Reference is now ${shown(is)}, was ${shown(was)}`);
	if (references.length > LISTED_CHANGES) listed.push(`and ${references.length - LISTED_CHANGES} more items' Business References changed`);
	changes.push(...listed);
	if (references.length > 0) details.business_references = references as unknown as IDataObject[];
	if (changes.length === 0) return undefined;

	const message = `Not sent: this run of the node is repeated with another identity than its first run in this execution: ${changes.join('; ')}`;
	const description =
		`A Retry repeats the run it retries: the Money API keeps idempotency keys per API client and a Business Reference is the key, so under another client or another reference the rows this run (or any earlier Retry of this execution) already made would be made a second time. Nothing was sent. ` +
		`To finish this execution, put back the credential and the Business Reference mapping the run started with, then Retry. ` +
		`To send under the new ones instead, check the ${resource}s already made (Get Many) and send only the rows not made yet in a new execution, with a Business Reference.`;
	const field = first.client !== now.client ? 'credential' : 'idempotency-key';
	return (itemIndex) => {
		const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
		Object.assign(error.context, { attempted: false, error_code: null, field, details });
		return error;
	};
}

/**
 * The refusal of this item when this run of the node repeats its first run in the execution with
 * another API client or other Business References; at the first run, records them. Call it before
 * anything of the item is read or sent: a run that failed on its first item still binds its Retries.
 */
export async function runIdentityRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, operation: OperationContext): Promise<NodeOperationError | undefined> {
	let verdict = verdicts.get(context);
	if (!verdict) {
		verdict = verdictOf(context, resource, operation);
		verdicts.set(context, verdict);
	}
	return (await verdict)?.(itemIndex);
}
