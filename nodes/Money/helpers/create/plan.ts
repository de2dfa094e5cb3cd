import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { type NodeError, notSent } from '../../../transport/errors';
import { changeList, itemList, listed } from './gate';
import { movementChanges, sha256, stableStringify } from './memory';
import type { CreateRow } from './rows';

/**
 * The plan of a create run (docs/idempotency.md, "Approved Plan"): what the run would send, each
 * row's key and movement, and the API client it would send it to, as one id. Preview Only shows it;
 * a run with Approved Plan pays only when its own plan is the approved one, else sends nothing.
 */

const PLAN_LABEL = 'n8n-nodes-money/plan/v1';
const LISTED = 5;
/** The runs of a preview node read for the approved rows (a loop previews once per run). */
const RUNS_READ = 100;

export interface Plan {
	/** `plan-` and 40 hex digits: the same rows to the same API client give the same id, in any order. */
	id: string;
	/** Each row's part of the plan (32 hex digits), by item index. */
	rows: string[];
	client: string;
	/** The rows without a Business Reference (0-based): a run with Approved Plan refuses them. */
	unreferenced: number[];
}

export interface Approval {
	/** The plan the run pays under. */
	approved?: string;
	/** Why the run is refused whole. */
	refusal?: NodeError;
}

/** What a row moves: its movementFields, as the row sets them. */
function movementOf(resource: TransactionResource, body: IDataObject): IDataObject {
	return Object.fromEntries(movementChanges(resource, {}, body).map(({ field, now }) => [field, now as IDataObject[string]]));
}

/**
 * A row's part: the key of its Business Reference (none without one: a default key is the node's
 * own, and the preview is another node), and its movement, or none for a row that cannot be sent.
 */
function rowPart(resource: TransactionResource, key: string | null, body: IDataObject | undefined): string {
	return sha256(stableStringify([PLAN_LABEL, 'row', resource, key, body ? movementOf(resource, body) : null])).slice(0, 32);
}

function planId(resource: TransactionResource, client: string, rows: string[]): string {
	return `plan-${sha256(stableStringify([PLAN_LABEL, 'plan', resource, client, [...rows].sort()])).slice(0, 40)}`;
}

/** The plan of the run's rows under their keys, to `client`. */
export function planOf(resource: TransactionResource, client: string, rows: CreateRow[], keys: string[]): Plan {
	const parts = rows.map((row) => rowPart(resource, row.businessReference !== '' ? keys[row.itemIndex] : null, row.body));
	return { id: planId(resource, client, parts), rows: parts, client, unreferenced: rows.filter((row) => row.businessReference === '').map((row) => row.itemIndex) };
}

/**
 * The approved preview's items in this execution: those carrying the approved plan id in a run of a
 * Preview Only Money node before this one (a loop previews once per run); none when no run has them
 * (approved in another execution, or not previewed before this node).
 */
function approvedItems(context: IExecuteFunctions, approved: string): IDataObject[] | undefined {
	const node = context.getNode();
	const proxy = context.getWorkflowDataProxy(0);
	for (const preview of context.getParentNodes(node.name, { includeNodeParameters: true })) {
		if (preview.type !== node.type || preview.parameters?.preview !== true) continue;
		for (let run = 0; run < RUNS_READ; run++) {
			let items: INodeExecutionData[];
			try {
				items = (proxy.$(preview.name) as { all(branch: number, run: number): INodeExecutionData[] }).all(0, run);
			} catch {
				break;
			}
			const found = items.map(({ json }) => json).filter((json) => json?.plan_id === approved);
			if (found.length > 0) return found;
		}
	}
	return undefined;
}

/**
 * The refusal of a run whose plan is not the approved one. With the approved preview in this
 * execution it names, by Business Reference, the rows added, removed or changed (each row's part
 * against the preview's `plan_row`) and whether the API client changed.
 */
function planRefusal(context: IExecuteFunctions, resource: TransactionResource, plan: Plan, rows: CreateRow[], approved: string): NodeError {
	const details: IDataObject = { approved_plan: approved, plan: plan.id };
	const before = approvedItems(context, approved);
	const parts: string[] = [];
	if (!before) parts.push('the rows or the API client differ, and the approved preview is not in this execution');
	else {
		const approvedBy = new Map(before.map((json) => [json.business_reference ?? null, json]));
		const references = new Set(rows.map((row) => row.businessReference || null));
		const named = (shown: IDataObject) => `${String(shown.business_reference ?? 'a row without a Business Reference')} (${String(shown.amount)} ${String(shown.currency)} ${resource === 'payout' ? 'to' : 'from'} ${String(shown[PARTY_FIELD[resource]])})`;
		const added = rows.filter((row) => !approvedBy.has(row.businessReference || null)).map((row) => row.identity);
		const removed = before.filter((json) => !references.has((json.business_reference as string | null | undefined) ?? null));
		const changed = rows.flatMap((row) => {
			const was = approvedBy.get(row.businessReference || null);
			if (!was || was.plan_row === plan.rows[row.itemIndex]) return [];
			const now = row.identity;
			const fields = Object.keys(now).filter((field) => field !== 'business_reference' && stableStringify(was[field] ?? null) !== stableStringify(now[field] ?? null));
			return [{ business_reference: row.businessReference, changes: fields.map((field) => ({ field, approved: was[field] ?? null, now: now[field] ?? null })) }];
		});
		const clientChanged = planId(resource, plan.client, before.map((json) => String(json.plan_row))) !== approved;
		const what = ({ business_reference, changes }: (typeof changed)[number]) =>
			`${business_reference} (${changes.length > 0 ? changeList(changes.map(({ field, approved: was, now }) => ({ field, before: was, now }))) : 'Account Number, or whether it can be sent'})`;
		if (added.length > 0) parts.push(`${added.length} ${added.length === 1 ? 'row' : 'rows'} added since the approval: ${listed(added.map(named), LISTED)}`);
		if (removed.length > 0) parts.push(`${removed.length} removed: ${listed(removed.map(named), LISTED)}`);
		if (changed.length > 0) parts.push(`${changed.length} changed: ${listed(changed.map(what), LISTED)}`);
		if (clientChanged) parts.push(`the credential now goes to the Money API ${plan.client}, not to the API client of the approved plan`);
		if (parts.length === 0) parts.push('rows repeated or without a Business Reference differ');
		Object.assign(details, { added: added.map((shown) => shown.business_reference), removed: removed.map((json) => json.business_reference ?? null), changed, api_client_changed: clientChanged });
	}
	const message = `${resource === 'payout' ? 'Payout' : 'Charge'} run refused, nothing was sent: the rows are not the approved plan ${approved} (Approved Plan); they are plan ${plan.id}: ${parts.join('; ')}`;
	const description = 'Preview the run again and have its plan approved, or put back the rows and the credential as they were approved. See docs/idempotency.md, "Approved Plan".';
	return notSent(context.getNode(), 0, message, description, { error_code: null, field: 'approvedPlan', parameter: 'options.approvedPlan', details });
}

/**
 * Approved Plan, decided once before any request: none when the option is not set; otherwise the
 * run goes only when every row gives the same plan id, every row has a Business Reference, a repeat
 * of the run (a Retry) keeps the plan its first run was approved as (`firstApproved`), and the
 * run's own plan is that plan.
 */
export function approvalOf(context: IExecuteFunctions, resource: TransactionResource, plan: Plan, rows: CreateRow[], firstApproved?: string): Approval {
	const node = context.getNode();
	const refuse = (reason: string, description: string, field = 'approvedPlan'): Approval => ({
		refusal: notSent(node, 0, `${resource === 'payout' ? 'Payout' : 'Charge'} run refused, nothing was sent: ${reason}`, description, { error_code: null, field, parameter: 'options.approvedPlan' }),
	});
	const mapIt = "Nothing was sent: map the plan id of the preview a person approved, such as {{ $('Preview').first().json.plan_id }} for a Preview Only node named Preview.";
	const configured = 'approvedPlan' in ((node.parameters.options as IDataObject | undefined) ?? {});
	const given = rows.map((row) => (typeof row.options.approvedPlan === 'string' ? row.options.approvedPlan.trim() : ''));
	const approved = configured ? given[0] : undefined;
	const empty = given.flatMap((value, index) => (value === '' ? [index] : []));
	if (configured && empty.length > 0) {
		return refuse(`Approved Plan (options.approvedPlan) gave no plan for ${itemList(empty)}: a run with Approved Plan pays only a plan a person approved`, mapIt);
	}
	const other = given.findIndex((value) => value !== approved);
	if (configured && other >= 0) {
		return refuse(`Approved Plan (options.approvedPlan) is not one plan for the run: item 1 gives ${approved}, item ${other + 1} gives ${given[other]}`, mapIt);
	}
	if (firstApproved !== undefined && approved !== firstApproved) {
		return refuse(
			`this run of the node was first approved as plan ${firstApproved}, and is now repeated ${approved === undefined ? 'without Approved Plan' : `under ${approved}`}`,
			'Nothing was sent: put back the Approved Plan the run started with, then Retry; to pay another plan, preview it and have it approved in a new execution.',
		);
	}
	if (approved === undefined) return {};
	if (plan.unreferenced.length > 0) {
		const description = 'Nothing was sent: map your own payout ID as the Business Reference of both the preview and this node, then preview again and have that plan approved. See docs/idempotency.md, "Approved Plan".';
		return refuse(`a run with Approved Plan needs a Business Reference on every row; ${itemList(plan.unreferenced)} ${plan.unreferenced.length === 1 ? 'has' : 'have'} none`, description, 'idempotency-key');
	}
	if (plan.id === approved) return { approved };
	return { refusal: planRefusal(context, resource, plan, rows, approved) };
}
