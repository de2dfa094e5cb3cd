import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { type NodeError, notSent } from '../../../transport/errors';
import { yourId } from '../../descriptions/createFields';
import { fieldError } from '../validation';
import { isToolCall } from './mandate';
import { type MovementChange, type NodeMemory, type Prior, type RunIdentity, stableStringify } from './memory';
import type { StopKind } from './pacing';
import type { CreateRow } from './rows';

/**
 * Every reason a create is not sent, decided before its request (docs/idempotency.md). The run's
 * questions are answered once, when the gate is made, from the rows read once: the run's identity
 * against its first run in the execution, its Business References. Each refusal is `notSent`
 * (`attempted: false`) and says what to do.
 */

type Refusal = (itemIndex: number) => NodeError;

const LISTED = 8;

/** "a, b, c and 4 more" past `most` names, else every one. */
export function listed(names: string[], most: number, separator = ', '): string {
	return names.length > most ? `${names.slice(0, most).join(separator)} and ${names.length - most} more` : names.join(separator);
}

/** "item 2", "items 1, 2 and 3", "items 1, 2, 3, 4, 5, 6 and 94 more" (1-based). */
export function itemList(indices: number[]): string {
	const numbers = indices.map((index) => String(index + 1));
	if (numbers.length === 1) return `item ${numbers[0]}`;
	if (numbers.length > LISTED) return `items ${listed(numbers, LISTED - 2)}`;
	return `items ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

function shown(value: unknown): string {
	if (value === null || value === undefined || value === '') return 'none';
	return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** "amount 5000 → 5500, account_number none → W-2". */
export function changeList(changes: Array<{ field: string; before: unknown; now: unknown }>): string {
	return changes.map(({ field, before, now }) => `${field} ${shown(before)} → ${shown(now)}`).join(', ');
}

/**
 * A run repeated (Retry, Retry On Fail) with another API client or other Business References than
 * its first run in the execution: under another client or key, the rows already made would be made
 * again (docs/idempotency.md, "A run keeps its API client and Business References").
 */
function identityRefusal(context: IExecuteFunctions, first: RunIdentity | undefined, now: RunIdentity): Refusal | undefined {
	if (!first) return undefined;
	const changes: string[] = [];
	const details: IDataObject = {};
	if (first.client !== now.client) {
		changes.push(`the credential now goes to the Money API ${now.client}, the run first went to ${first.client}`);
		details.api_client = { first: first.client, now: now.client };
	}
	const references = Object.keys(now.references)
		.filter((item) => item in first.references && first.references[item] !== now.references[item])
		.map((item) => ({ item: Number(item) + 1, first: first.references[item], now: now.references[item] }));
	const quoted = (reference: string | null) => (reference === null ? 'none' : JSON.stringify(reference));
	if (references.length > 0) {
		changes.push(listed(references.map(({ item, first: was, now: is }) => `item ${item}'s Business Reference is now ${quoted(is)}, was ${quoted(was)}`), 5, '; '));
		details.business_references = references as unknown as IDataObject[];
	}
	if (changes.length === 0) return undefined;
	const message = `Not sent: this run of the node is repeated with another identity than its first run in this execution: ${changes.join('; ')}`;
	const description = `Nothing was sent: to finish this execution, put back the credential and the Business Reference mapping the run started with, then Retry; to send under the new ones, see docs/idempotency.md, "A run keeps its API client and Business References".`;
	const field = first.client !== now.client ? 'credential' : 'idempotency-key';
	return (itemIndex) => notSent(context.getNode(), itemIndex, message, description, { error_code: null, field, details });
}

/**
 * Business References that are not references: rows with different bodies sharing one (an
 * expression such as `seller-share-{{ $json.missing }}` gives one constant for every row), one that
 * is only whitespace, a number that is not an exact integer, an expression that gave nothing.
 */
function referencesRefusal(context: IExecuteFunctions, resource: TransactionResource, rows: CreateRow[]): Refusal | undefined {
	const of = (kind: CreateRow['reference']['kind']) => rows.filter((row) => row.reference.kind === kind).map((row) => row.itemIndex);
	const byReference = new Map<string, CreateRow[]>();
	for (const row of rows) if (row.businessReference !== '') byReference.set(row.businessReference, [...(byReference.get(row.businessReference) ?? []), row]);
	const shared = [...byReference]
		.filter(([, sharing]) => new Set(sharing.flatMap((row) => (row.body ? [stableStringify(row.body)] : []))).size > 1)
		.map(([reference, sharing]) => ({ reference, items: sharing.map((row) => row.itemIndex) }));
	const [whitespace, empty, inexact] = [of('whitespace'), of('empty'), of('inexactNumber')];
	const parts = [
		...shared.map(({ reference, items }) => `Business Reference ${JSON.stringify(reference)} is shared by ${itemList(items)}, whose ${resource}s differ`),
		...(whitespace.length > 0 ? [`the Business Reference is only whitespace in ${itemList(whitespace)}`] : []),
		...(empty.length > 0 ? [`the Business Reference expression gave nothing in ${itemList(empty)}`] : []),
		...(inexact.length > 0
			? [`the Business Reference (businessReference) is a number that is not an exact integer in ${itemList(inexact)}: map it as text`]
			: []),
	];
	if (parts.length === 0) return undefined;
	const oneBased = (items: number[]) => items.map((index) => index + 1);
	const details: IDataObject = {
		shared: shared.map(({ reference, items }) => ({ business_reference: reference, items: oneBased(items) })),
		whitespace: oneBased(whitespace),
		empty: oneBased(empty),
		inexact_number: oneBased(inexact),
	};
	const message = `${resource === 'payout' ? 'Payout' : 'Charge'} run refused, nothing was sent: ${parts.join('; ')}`;
	const description = `Map a value unique to each row that every item has, such as your ${yourId(resource)}: the Money API answers a reference it has seen with its first ${resource} or IDEMPOTENCY_CONFLICT. See docs/idempotency.md, "Business References that are not references".`;
	return (itemIndex) => notSent(context.getNode(), itemIndex, message, description, { error_code: null, field: 'idempotency-key', details });
}

/** The setting Require Business Reference, for a row without one in a production execution (docs/decisions.md#d8). */
export function requiredReferenceRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): NodeError | undefined {
	if (context.getNodeParameter('requireBusinessReference', itemIndex, true) === false) return undefined;
	// A Retry keeps the run's Business References: one mapped now applies to new executions only.
	const advice =
		context.getMode() === 'retry'
			? `to finish this execution (a Retry counts as production), turn the setting off and Retry with the currently saved workflow; map your own ${yourId(resource)} for new executions`
			: `map your own ${yourId(resource)}, or turn the setting off`;
	const rule = `is required in production executions by this node's setting "Require Business Reference" (on by default): ${advice}`;
	return fieldError(context.getNode(), { parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule }, itemIndex);
}

/** The API accepted this row under its key with another amount, party, channel or account. */
function paidWithOtherValues(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, key: string, changes: MovementChange[]): NodeError {
	return notSent(
		context.getNode(),
		itemIndex,
		`Not sent: item ${itemIndex + 1} was already paid in this execution with other values (${changeList(changes)})`,
		`Nothing was sent: put back the values this ${resource} was paid with (the Money API refuses others under its key, IDEMPOTENCY_CONFLICT), or send the difference in a new execution. See docs/idempotency.md, "A row sent once keeps its values".`,
		{ error_code: null, field: changes[0]?.field, idempotency_key: key, details: { changes: changes.map(({ field, before, now }) => ({ field, sent: before, now })) as unknown as IDataObject[] } },
	);
}

/** A refusal that cannot clear within the run (a cap, a balance too low): the wallet's later rows are not sent. */
export interface RunStop {
	kind: StopKind;
	/** The item whose refusal stopped the wallet, 0-based. */
	itemIndex: number;
	errorCode: string;
	currency: string;
	details: IDataObject;
}

/** The wallet a create debits: its resource, currency and account number (empty: the primary wallet). */
function walletOf(resource: TransactionResource, body: IDataObject): string {
	return `${resource}|${String(body.currency)}|${typeof body.account_number === 'string' ? body.account_number : ''}`;
}

/** An amount of the API's details as text; a value that is not a number or text (the API's JSON can hold anything) as JSON. */
function amountText(value: unknown, currency: string): string {
	return `${typeof value === 'number' || typeof value === 'string' ? value : JSON.stringify(value)} ${currency}`;
}

/** One line naming the cap or the shortfall, for the refused item and those skipped after it. */
export function describeStop(stop: RunStop, amount?: number): string {
	const { details, currency } = stop;
	const at = `at item ${stop.itemIndex + 1}`;
	if (stop.kind === 'insufficient_funds') {
		const available = details.available_balance;
		if (typeof available !== 'number' || !Number.isFinite(available)) return `the wallet balance ran out ${at}`;
		const shortfall = amount !== undefined && amount > available ? `; this payout of ${amount} ${currency} is short by ${amount - available} ${currency}` : '';
		return `the wallet had ${amountText(available, currency)} available ${at}${shortfall}`;
	}
	const period = stop.kind === 'daily_cap' ? 'daily' : 'monthly';
	const cap = details[stop.kind];
	const used = details[`${period}_used`] ?? details[`${period}_total`];
	return `the ${period} payout cap${cap !== undefined ? ` of ${amountText(cap, currency)}` : ''} was reached ${at}${used !== undefined ? ` (${amountText(used, currency)} already used)` : ''}`;
}

function adviceFor(stop: RunStop): string {
	if (stop.kind === 'insufficient_funds') return 'Top up the wallet (or debit another with Account Number), then Retry this execution: the items it paid are not paid again.';
	return `Run the remaining items after ${stop.kind === 'daily_cap' ? 'the next UTC day' : 'the next UTC month'}, or ask the Money API provider to raise the cap: items with a Business Reference that were paid are not paid twice.`;
}

export interface WalletBalance {
	number: string;
	value: number;
	currency: string;
}

export function walletFromAccount(account: IDataObject): WalletBalance | undefined {
	const wallet = account.account as IDataObject | undefined;
	const balance = wallet?.balance as IDataObject | undefined;
	if (typeof balance?.value !== 'number' || typeof balance.currency !== 'string') return undefined;
	return { number: String(wallet?.number ?? ''), value: balance.value, currency: balance.currency };
}

/** Whether a payout debits the primary wallet (the one the account route reports): in its currency, with no Account Number or the wallet's own. */
export function debitsWallet(body: IDataObject, wallet: WalletBalance): boolean {
	const account = typeof body.account_number === 'string' ? body.account_number.trim() : '';
	return body.currency === wallet.currency && (account === '' || account === wallet.number);
}

/** The account read for Check Balance First and a preview: the primary wallet, or why it is not known ('the account could not be read (…)'). */
export type AccountRead = () => Promise<WalletBalance | string>;

export class Gate {
	private readonly runRefusal?: Refusal;
	private readonly referencesRefusal?: Refusal;
	private readonly identity?: RunIdentity;
	private balanceRefusal?: Refusal;
	private readonly stops = new Map<string, RunStop>();

	/**
	 * `client`: the API client the run sends to; `failure`: why the run cannot start (its credential
	 * or its Options could not be read, its plan is not the approved one), which every row then gets.
	 * The run's identity (with `approvedPlan`) is compared with the first run of its run index now,
	 * and recorded when the run first sends (`bind`).
	 */
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: TransactionResource,
		rows: CreateRow[],
		private readonly memory: NodeMemory,
		client: string,
		failure: NodeError | undefined,
		private readonly replaysLostRun: boolean,
		approvedPlan?: string,
	) {
		if (failure) {
			this.runRefusal = () => failure;
			return;
		}
		const references: RunIdentity['references'] = {};
		for (const row of rows) if (row.reference.kind !== 'unreadable') references[row.itemIndex] = row.businessReference || null;
		this.identity = { client, references, ...(approvedPlan ? { approvedPlan } : {}) };
		this.runRefusal = identityRefusal(context, memory.firstIdentity(this.runIndex), this.identity);
		this.referencesRefusal = referencesRefusal(context, resource, rows);
	}

	private get runIndex(): number {
		return this.context.getWorkflowDataProxy(0).$thisRunIndex;
	}

	/**
	 * Before the run's first request: binds its run index to this identity, so that every repeat of
	 * the run (Retry On Fail, every Retry of the execution) must go to the same client with the same
	 * Business References. A run that sent nothing binds nothing: its Retry may map a reference.
	 */
	bind(): void {
		if (this.identity) this.memory.bindIdentity(this.runIndex, this.identity);
	}

	/**
	 * Check Balance First: the run's payouts that would be sent and that this execution has not paid
	 * already (a Retry knows them), totalled against the primary wallet's balance, before any payout.
	 */
	async checkBalance(rows: CreateRow[], keys: string[], readAccount: AccountRead): Promise<void> {
		const priors = rows.map((row) => this.memory.prior(this.resource, keys[row.itemIndex], row.body));
		const sendable = rows.filter((row) => this.refusalOf(row, keys[row.itemIndex], priors[row.itemIndex]) === undefined);
		const paid = sendable.filter((row) => priors[row.itemIndex].acknowledged !== undefined);
		if (sendable.length === paid.length) return;
		const refuse = (message: string, description: string, details?: IDataObject) => (itemIndex: number) =>
			notSent(this.context.getNode(), itemIndex, message, description, { error_code: details ? 'RUN_EXCEEDS_BALANCE' : null, ...(details ? { details } : {}) });
		const wallet = await readAccount();
		if (typeof wallet === 'string') {
			const advice = wallet.startsWith('the account could not be read')
				? 'Fix what the account read reports (the client needs the get_money_v1_account entitlement), or turn off Check Balance First.'
				: 'Turn off Check Balance First to pay without the check: the account answer has no balance of the primary wallet.';
			this.balanceRefusal = refuse(`Check Balance First: ${wallet}; nothing was sent`, advice);
			return;
		}
		// Rows under one key are one payment (their bodies are the same: referencesRefusal), counted once.
		const byKey = new Map(sendable.filter((row) => !paid.includes(row)).map((row) => [keys[row.itemIndex], row]));
		const debiting = [...byKey.values()].filter((row) => debitsWallet(row.body as IDataObject, wallet));
		const others = byKey.size - debiting.length;
		if (others > 0) this.context.logger.info(`Money: Check Balance First covers ${wallet.currency} payouts from wallet ${wallet.number} only; ${others} payouts in another currency or from another account are not checked`);
		const total = debiting.reduce((sum, row) => sum + (row.body?.amount as number), 0);
		if (total <= wallet.value) return;
		const { currency, value: balance, number } = wallet;
		const shortfall = total - balance;
		const paidPayments = new Set(paid.map((row) => keys[row.itemIndex])).size;
		const notCounted = paidPayments === 0 ? '' : paidPayments === 1 ? ' (1 payout this execution already paid is not counted)' : ` (${paidPayments} payouts this execution already paid are not counted)`;
		this.balanceRefusal = refuse(
			`Payout run refused, nothing was sent: ${debiting.length} payouts total ${total} ${currency}, the wallet ${number} has ${balance} ${currency} available, short by ${shortfall} ${currency}${notCounted}`,
			'Top up the wallet, remove rows, Retry the execution that stopped part-way, or turn off Check Balance First, which counts every row of this execution it would send except those already paid (in a new execution, also rows whose Business Reference was paid before).',
			{ currency, total, available_balance: balance, shortfall, account_number: number, already_paid: paidPayments },
		);
	}

	/** After a refusal that cannot clear within the run: the later rows of the same wallet are not sent. */
	recordStop(body: IDataObject, stop: RunStop): void {
		const wallet = walletOf(this.resource, body);
		if (!this.stops.has(wallet)) this.stops.set(wallet, stop);
	}

	/**
	 * What holds back a row that passed `refusalOf`, decided as it comes to be sent: Check Balance
	 * First, or a cap or balance met earlier in the run by the same wallet.
	 */
	holdOf(row: CreateRow): NodeError | undefined {
		if (this.balanceRefusal) return this.balanceRefusal(row.itemIndex);
		const stop = row.body && this.stops.get(walletOf(this.resource, row.body));
		if (!stop) return undefined;
		return notSent(
			this.context.getNode(),
			row.itemIndex,
			`Not sent: ${describeStop(stop, row.body?.amount as number)} (${stop.errorCode})`,
			adviceFor(stop),
			{ error_code: stop.errorCode, httpCode: null, details: stop.details },
		);
	}

	/** Why this row must not be sent under `key`, in the order a person fixes them; undefined when it may go out. */
	refusalOf(row: CreateRow, key: string, prior: Prior = this.memory.prior(this.resource, key, row.body)): NodeError | undefined {
		const { context, resource } = this;
		const { itemIndex, body } = row;
		if (this.runRefusal) return this.runRefusal(itemIndex);
		if (row.error || !body) return row.error;
		if (this.referencesRefusal) return this.referencesRefusal(itemIndex);
		// A preview moves nothing; the rest of an agent's mandate is decided after the gate, with the last 24 hours read (mandate.ts).
		if (isToolCall(context) && row.preview !== true && context.getNodeParameter('allowMoneyMovementInToolMode', itemIndex, false) !== true) {
			const description = 'Turn on "Allow Money Movement in Tool Mode" and set the mandate on this node to let an agent move money.';
			return notSent(context.getNode(), itemIndex, `Creating a ${resource} is turned off while the Money node runs as an AI tool`, description);
		}
		if (row.businessReference === '') {
			// A sub-workflow runs in a child execution (mode integrated) that n8n starts anew on every call, a Retry of the caller included: nothing ties two of its runs together.
			if (context.getMode() === 'integrated') {
				const rule = `is required in a sub-workflow (rule "Sub-workflows need a Business Reference"), which n8n starts anew on every call: map your own ${yourId(resource)}`;
				return fieldError(context.getNode(), { parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule }, itemIndex);
			}
			if (this.replaysLostRun) {
				return notSent(
					context.getNode(),
					itemIndex,
					`This Retry repeats a run that n8n lost in a crash; the ${resource} was not sent`,
					"Send only the rows the crashed execution did not pay (Reconcile, or Get Many with Return All, over its time) in a new execution, with a Business Reference. Do not map a Business Reference and retry this execution: the rows paid before the crash would be paid again. See docs/idempotency.md, \"After a crash\".",
				);
			}
			if (context.getMode() !== 'manual') {
				const required = requiredReferenceRefusal(context, resource, itemIndex);
				if (required) return required;
			}
		}
		if (prior.changes.length > 0) return paidWithOtherValues(context, resource, itemIndex, key, prior.changes);
		if (prior.otherDocument) {
			return notSent(
				context.getNode(),
				itemIndex,
				'Payment Reference Document (payment_reference.ref_document) is not the document this create was first sent with under its idempotency key',
				'Nothing was sent: give the item the document it was first sent with, as the Money API may hold this create and refuses another document under its key (IDEMPOTENCY_CONFLICT).',
				{ field: 'payment_reference.ref_document' },
			);
		}
		return undefined;
	}
}
