import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { type NodeError, notSent } from '../../../transport/errors';
import { yourId } from '../../descriptions/createFields';
import { fieldError } from '../validation';
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
export function listed(names: string[], most: number): string {
	return names.length > most ? `${names.slice(0, most).join(', ')} and ${names.length - most} more` : names.join(', ');
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

/**
 * A run repeated (Retry, Retry On Fail) with another API client or other Business References than
 * its first run in the execution: under another client or key, the rows already made would be made
 * again (docs/idempotency.md, "A run keeps its API client and Business References").
 */
function identityRefusal(context: IExecuteFunctions, resource: TransactionResource, first: RunIdentity | undefined, now: RunIdentity): Refusal | undefined {
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
	const listed = references.slice(0, 5).map(({ item, first: was, now: is }) => `item ${item}'s Business Reference is now ${quoted(is)}, was ${quoted(was)}`);
	if (references.length > 5) listed.push(`and ${references.length - 5} more items' Business References changed`);
	changes.push(...listed);
	if (references.length > 0) details.business_references = references as unknown as IDataObject[];
	if (changes.length === 0) return undefined;
	const message = `Not sent: this run of the node is repeated with another identity than its first run in this execution: ${changes.join('; ')}`;
	const description =
		`A Retry repeats the run it retries: the Money API keeps idempotency keys per API client and a Business Reference is the key, so under another client or another reference the rows this run (or any earlier Retry of this execution) already made would be made a second time. Nothing was sent. ` +
		`To finish this execution, put back the credential and the Business Reference mapping the run started with, then Retry. ` +
		`To send under the new ones instead, check the ${resource}s already made (Reconcile, or Get Many with Return All, over the run's time) and send only the rows not made yet in a new execution, with a Business Reference.`;
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
			? [`the Business Reference (businessReference) is a number that is not an exact integer in ${itemList(inexact)}: beyond 9007199254740991 a number has lost digits, so two IDs can read as one; map it as text (the ID as a string in the source data)`]
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
	const description = `A Business Reference is one ${resource}: the Money API answers a reference it has seen with that first ${resource} (the other rows would not be paid) or refuses it (IDEMPOTENCY_CONFLICT). Map a value that is unique per row, such as your ${yourId(resource)}, and check that the fields the expression reads exist in every item.`;
	return (itemIndex) => notSent(context.getNode(), itemIndex, message, description, { error_code: null, field: 'idempotency-key', details });
}

/** The setting Require Business Reference, for a row without one in a production execution (docs/decisions.md#d8). */
export function requiredReferenceRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number): NodeError | undefined {
	if (context.getNodeParameter('requireBusinessReference', itemIndex, true) === false) return undefined;
	// A Retry keeps the run's Business References: one mapped now applies to new executions only.
	const advice =
		context.getMode() === 'retry'
			? `to finish this execution (a Retry counts as production), turn the setting off and Retry with the currently saved workflow: the rows already made are answered from the Money API's record; map your own ${yourId(resource)} for new executions`
			: `map your own ${yourId(resource)}, or turn the setting off`;
	const rule = `is required in production executions by this node's setting "Require Business Reference" (on by default): ${advice}`;
	return fieldError(context.getNode(), { parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule }, itemIndex);
}

/** The API accepted this row under its key with another amount, party, channel or account. */
function paidWithOtherValues(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, key: string, changes: MovementChange[]): NodeError {
	const listed = changes.map(({ field, before, now }) => `${field} ${shown(before)} → ${shown(now)}`).join(', ');
	return notSent(
		context.getNode(),
		itemIndex,
		`Not sent: item ${itemIndex + 1} was already paid in this execution with other values (${listed})`,
		`This ${resource} was made in the run this execution repeats, under the same idempotency key; the Money API refuses other values under it (IDEMPOTENCY_CONFLICT), and under a new key it would be made twice. Nothing was sent. To finish the run, put back the values it was made with, or limit the change to the rows not made yet (an expression on the row); to move more money for this row, send the difference in a new execution.`,
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

function amountText(value: unknown, currency: string): string {
	return `${String(value)} ${currency}`;
}

/** One line naming the cap or the shortfall, for the refused item and those skipped after it. */
export function describeStop(stop: RunStop, amount?: number): string {
	const { details, currency } = stop;
	const at = `at item ${stop.itemIndex + 1}`;
	if (stop.kind === 'insufficient_funds') {
		const available = Number(details.available_balance);
		if (!Number.isFinite(available)) return `the wallet balance ran out ${at}`;
		const shortfall = amount !== undefined && amount > available ? `; this payout of ${amount} ${currency} is short by ${amount - available} ${currency}` : '';
		return `the wallet had ${amountText(available, currency)} available ${at}${shortfall}`;
	}
	const period = stop.kind === 'daily_cap' ? 'daily' : 'monthly';
	const cap = details[stop.kind];
	const used = details[`${period}_used`] ?? details[`${period}_total`];
	return `the ${period} payout cap${cap !== undefined ? ` of ${amountText(cap, currency)}` : ''} was reached ${at}${used !== undefined ? ` (${amountText(used, currency)} already used)` : ''}`;
}

function adviceFor(stop: RunStop): string {
	if (stop.kind === 'insufficient_funds') {
		return 'Top up the merchant wallet (or debit another wallet with Account Number), then Retry this execution: the items it paid are not paid again, and Check Balance First counts only the rest. Running the workflow again is safe for items with a Business Reference.';
	}
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
		this.runRefusal = identityRefusal(context, resource, memory.firstIdentity(this.runIndex), this.identity);
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
				: 'The account answer has no balance of the primary wallet to check the run against. Turn off Check Balance First to pay without the check.';
			this.balanceRefusal = refuse(`Check Balance First: ${wallet}; nothing was sent`, advice);
			return;
		}
		const debiting = sendable.filter((row) => !paid.includes(row) && debitsWallet(row.body as IDataObject, wallet));
		const others = sendable.length - paid.length - debiting.length;
		if (others > 0) this.context.logger.info(`Money: Check Balance First covers ${wallet.currency} payouts from wallet ${wallet.number} only; ${others} payouts in another currency or from another account are not checked`);
		const total = debiting.reduce((sum, row) => sum + (row.body?.amount as number), 0);
		if (total <= wallet.value) return;
		const { currency, value: balance, number } = wallet;
		const shortfall = total - balance;
		const notCounted = paid.length > 0 ? ` (${paid.length} rows this execution already paid are not counted)` : '';
		this.balanceRefusal = refuse(
			`Payout run refused, nothing was sent: ${debiting.length} payouts total ${total} ${currency}, the wallet ${number} has ${balance} ${currency} available, short by ${shortfall} ${currency}${notCounted}`,
			'Check Balance First compares what the run can still pay out with the wallet balance before any payout. It counts every row of this execution that it would send, except those it already paid (a Retry of the execution knows them); in a new execution it also counts the rows whose Business Reference was paid before, though they come back replayed and move nothing. Top up the wallet, remove rows from the run, Retry the execution that stopped part-way (only the rows left to pay are counted), or turn off Check Balance First for this run.',
			{ currency, total, available_balance: balance, shortfall, account_number: number, already_paid: paid.length },
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
			`The Money API refused item ${stop.itemIndex + 1} with ${stop.errorCode}, which cannot clear within this run, so this ${this.resource} was not sent. ${adviceFor(stop)}`,
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
		if (context.getNode().type.endsWith('Tool') || context.isToolExecution?.() === true) {
			if (context.getNodeParameter('allowMoneyMovementInToolMode', itemIndex, false) !== true) {
				return notSent(
					context.getNode(),
					itemIndex,
					`Creating a ${resource} is turned off while the Money node runs as an AI tool`,
					'Turn on "Allow Money Movement in Tool Mode" and set "Maximum Amount in Tool Mode" on this node to let an agent move money.',
				);
			}
			const maximum = Number(context.getNodeParameter('maxAmountInToolMode', itemIndex, 0));
			if (!((body.amount as number) <= maximum)) {
				return notSent(
					context.getNode(),
					itemIndex,
					`Amount ${body.amount as number} is above the Maximum Amount in Tool Mode (${maximum}); the ${resource} was not created`,
					'Raise "Maximum Amount in Tool Mode" on this node if the agent should move more.',
				);
			}
		}
		if (row.businessReference === '') {
			// A sub-workflow runs in a child execution (mode integrated) that n8n starts anew on every call, a Retry of the caller included: nothing ties two of its runs together.
			if (context.getMode() === 'integrated') {
				const rule = `is required in a sub-workflow (rule "Sub-workflows need a Business Reference"): n8n starts the sub-workflow as a new execution on every call, a Retry of the calling workflow included, so without one a ${resource} already made would be made again; map your own ${yourId(resource)}`;
				return fieldError(context.getNode(), { parameter: 'businessReference', label: 'Business Reference', field: 'idempotency-key', rule }, itemIndex);
			}
			if (this.replaysLostRun) {
				return notSent(
					context.getNode(),
					itemIndex,
					`This Retry repeats a run that n8n lost in a crash; the ${resource} was not sent`,
					"n8n was stopped in the middle of this node's earlier run and its memory of that run was not saved, so the node cannot tell which rows were already sent. Without a Business Reference, sending again could pay twice. Check the payments of the crashed execution (Reconcile, or Get Many with Return All, over its time), then send only the missing rows in a new execution, with a Business Reference. Do not map a Business Reference and retry this execution: the rows paid before the crash were paid without one, and would be paid again.",
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
				'This create was sent before (a Retry repeats it) and the Money API may hold it: another document under the same key would be refused (IDEMPOTENCY_CONFLICT). Give the item the document it was first sent with. Nothing was sent.',
				{ field: 'payment_reference.ref_document' },
			);
		}
		return undefined;
	}
}
