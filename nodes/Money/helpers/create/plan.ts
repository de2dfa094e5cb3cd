import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { type NodeError, notSent } from '../../../transport/errors';
import { itemList, listed } from './gate';
import { movementChanges, sha256, stableStringify } from './memory';
import { type CreateRow, identityAsGiven, identityOf } from './rows';

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

/** A row as the plan compares it: its Business Reference, its part, what the preview shows of it. */
interface Compared {
	reference: string | null;
	part: string;
	shown: IDataObject;
}

/**
 * The approved preview's items in this execution: the output of a Preview Only Money node before
 * this one whose items carry the approved plan id. Undefined when none does (the plan was approved
 * in another execution, or its preview is not before this node).
 */
function approvedItems(context: IExecuteFunctions, approved: string): IDataObject[] | undefined {
	const node = context.getNode();
	const proxy = context.getWorkflowDataProxy(0);
	const previews = context.getParentNodes(node.name, { includeNodeParameters: true }).filter((parent) => parent.type === node.type && parent.parameters?.preview === true);
	for (const preview of previews) {
		for (let run = 0; run < RUNS_READ; run++) {
			let items: Array<INodeExecutionData | IDataObject>;
			try {
				items = (proxy.$(preview.name) as { all(branch: number, run: number): Array<INodeExecutionData | IDataObject> }).all(0, run);
			} catch {
				break;
			}
			const found = items.map((item) => (item.json && typeof item.json === 'object' ? (item.json as IDataObject) : (item as IDataObject))).filter((json) => json.plan_id === approved);
			if (found.length > 0) return found;
		}
	}
	return undefined;
}

function rowName(resource: TransactionResource, { reference, shown }: Compared): string {
	const party = shown[PARTY_FIELD[resource]];
	return `${reference ?? 'a row without a Business Reference'} (${String(shown.amount)} ${String(shown.currency)} ${resource === 'payout' ? 'to' : 'from'} ${String(party)})`;
}

/** Rows of the approved plan and of the run, paired by Business Reference: added, removed, changed (with the fields the preview shows). */
function differences(approved: Compared[], now: Compared[]) {
	const added: Compared[] = [];
	const removed: Compared[] = [];
	const changed: Array<{ before: Compared; after: Compared }> = [];
	for (const reference of new Set([...approved, ...now].map((row) => row.reference))) {
		const before = approved.filter((row) => row.reference === reference);
		const after = now.filter((row) => row.reference === reference);
		const unmatched = (rows: Compared[], others: Compared[]) => rows.filter((row, index) => rows.slice(0, index + 1).filter((same) => same.part === row.part).length > others.filter((other) => other.part === row.part).length);
		const [gone, come] = [unmatched(before, after), unmatched(after, before)];
		const paired = Math.min(gone.length, come.length);
		for (let index = 0; index < paired; index++) changed.push({ before: gone[index], after: come[index] });
		removed.push(...gone.slice(paired));
		added.push(...come.slice(paired));
	}
	return { added, removed, changed };
}

function fieldChanges({ before, after }: { before: Compared; after: Compared }) {
	return Object.keys(after.shown)
		.filter((field) => field !== 'business_reference' && stableStringify(before.shown[field] ?? null) !== stableStringify(after.shown[field] ?? null))
		.map((field) => ({ field, approved: before.shown[field] ?? null, now: after.shown[field] ?? null }));
}

/** The refusal of a run whose plan is not the approved one, naming what differs when the approved preview is in this execution. */
function planRefusal(context: IExecuteFunctions, resource: TransactionResource, plan: Plan, rows: CreateRow[], approved: string): NodeError {
	const node = context.getNode();
	const found = approvedItems(context, approved);
	const head = `${resource === 'payout' ? 'Payout' : 'Charge'} run refused, nothing was sent: the rows are not the approved plan ${approved} (Approved Plan); they are plan ${plan.id}`;
	const description = `A run with Approved Plan pays exactly the rows a person approved, or nothing. If the change is meant, Preview the run again and have its plan approved; otherwise put back the rows${
		found ? '' : ' and the credential'
	} as they were approved and run the workflow again.`;
	const details: IDataObject = { approved_plan: approved, plan: plan.id };
	if (!found) {
		const message = `${head}: the rows or the API client differ from the approved plan ${approved}, whose preview is not in this execution (approved in another execution, or not previewed by a Preview Only node before this one)`;
		return notSent(node, 0, message, description, { error_code: null, field: 'approvedPlan', parameter: 'options.approvedPlan', details });
	}
	const approvedRows = found.map((json) => ({ reference: typeof json.business_reference === 'string' ? json.business_reference : null, part: String(json.plan_row), shown: json }));
	const nowRows = rows.map((row) => ({ reference: row.businessReference || null, part: plan.rows[row.itemIndex], shown: row.body ? identityOf(resource, row.body, row.businessReference) : identityAsGiven(context, resource, row) }));
	const { added, removed, changed } = differences(approvedRows, nowRows);
	const clientChanged = planId(resource, plan.client, approvedRows.map((row) => row.part)) !== approved;
	const parts: string[] = [];
	if (added.length > 0) parts.push(`${added.length} ${added.length === 1 ? 'row' : 'rows'} added since the approval: ${listed(added.map((row) => rowName(resource, row)), LISTED)}`);
	if (removed.length > 0) parts.push(`${removed.length} removed: ${listed(removed.map((row) => rowName(resource, row)), LISTED)}`);
	if (changed.length > 0) {
		const named = changed.map((pair) => {
			const fields = fieldChanges(pair);
			const what = fields.length > 0 ? fields.map(({ field, approved: was, now }) => `${field} ${String(was)} → ${String(now)}`).join(', ') : 'Account Number, or whether it can be sent';
			return `${pair.after.reference ?? 'a row without a Business Reference'} (${what})`;
		});
		parts.push(`${changed.length} changed: ${listed(named, LISTED)}`);
	}
	if (clientChanged) parts.push(`the credential now goes to the Money API ${plan.client}, not to the API client of the approved plan`);
	details.added = added.map((row) => row.reference);
	details.removed = removed.map((row) => row.reference);
	details.changed = changed.map((pair) => ({ business_reference: pair.after.reference, changes: fieldChanges(pair) })) as unknown as IDataObject[];
	details.api_client_changed = clientChanged;
	return notSent(node, 0, `${head}: ${parts.join('; ')}`, description, { error_code: null, field: 'approvedPlan', parameter: 'options.approvedPlan', details });
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
	const mapIt = "Map the plan id of the approved preview, such as {{ $('Preview').first().json.plan_id }}, where Preview is the Preview Only node whose output a person approved.";
	const configured = 'approvedPlan' in ((node.parameters.options as IDataObject | undefined) ?? {});
	const given = rows.map((row) => (typeof row.options.approvedPlan === 'string' ? row.options.approvedPlan.trim() : ''));
	const approved = configured ? given[0] : undefined;
	const empty = given.flatMap((value, index) => (value === '' ? [index] : []));
	if (configured && empty.length > 0) {
		return refuse(`Approved Plan (options.approvedPlan) gave no plan for ${itemList(empty)}: a run with Approved Plan pays only a plan a person approved`, `${mapIt} Nothing was sent.`);
	}
	const other = given.findIndex((value) => value !== approved);
	if (configured && other >= 0) {
		return refuse(`Approved Plan (options.approvedPlan) is not one plan for the run: item 1 gives ${approved}, item ${other + 1} gives ${given[other]}`, `A run pays one approved plan. ${mapIt} Nothing was sent.`);
	}
	if (firstApproved !== undefined && approved !== firstApproved) {
		return refuse(
			`this run of the node was first approved as plan ${firstApproved}, and is now repeated ${approved === undefined ? 'without Approved Plan' : `under ${approved}`}`,
			'A Retry repeats the approved run: it pays the rest of that plan, or nothing. Put back the Approved Plan the run started with, then Retry; to pay another plan, preview it and have it approved in a new execution.',
		);
	}
	if (approved === undefined) return {};
	if (plan.unreferenced.length > 0) {
		const description = `The preview and this node are two nodes with their own keys for rows without a Business Reference, so a plan with such rows cannot be approved. Map your own payout ID as the Business Reference of both nodes, preview again and have that plan approved. Nothing was sent.`;
		return refuse(`a run with Approved Plan needs a Business Reference on every row; ${itemList(plan.unreferenced)} ${plan.unreferenced.length === 1 ? 'has' : 'have'} none`, description, 'idempotency-key');
	}
	if (plan.id === approved) return { approved };
	return { refusal: planRefusal(context, resource, plan, rows, approved) };
}
