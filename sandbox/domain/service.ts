import { createHash } from 'node:crypto';
import { toEnvelope, type EnvelopeContext } from '../http/envelope';
import { ApiError, validationError } from '../http/errors';
import { pinMatches, readPin } from '../security/pin';
import type { ClientRegistry, ClientState } from './clients';
import type { SandboxClock } from './clock';
import type { Counters } from './counters';
import type { Directory } from './directory';
import { assertPayoutWithinLimits, recordPayoutForVelocity } from './limits';
import { randomId } from './random';
import type { IdempotencyFingerprint, ResolvedConfig, WalletSettings } from './settings';
import type { IdempotencyRecord, IdempotencyStore, TransactionStore } from './store';
import { CHANNELS, type Channel, type Resource, type Status, type Transaction, type TransactionEnvelope } from './types';
import { accountTypeField, partyField, stableStringify, validateCreate, type CreateRequest } from './validation';

export interface CreateOutcome {
	status: number;
	body: string;
	replayed: boolean;
	reference: string | null;
}

export type StatusChangeListener = (tx: Transaction) => void;

const ALLOWED_TRANSITIONS: Record<Status, readonly Status[]> = {
	PENDING: ['COMPLETED', 'FAILED', 'CANCELLED'],
	COMPLETED: ['REVERSED'],
	FAILED: [],
	CANCELLED: [],
	REVERSED: [],
};
const REFUNDING_STATUSES: ReadonlySet<Status> = new Set(['FAILED', 'CANCELLED', 'REVERSED']);

export class TransitionError extends Error {
	constructor(
		readonly code: 'not_found' | 'invalid_transition',
		message: string,
	) {
		super(message);
	}
}

export class MoneyService {
	private readonly finalizeTimers = new Set<NodeJS.Timeout>();
	private readonly listeners: StatusChangeListener[] = [];
	finalizeAfterMs: number | null = null;
	/** How a repeated idempotency key's body is compared with the first: byte for byte (a strict API) or by its fields. */
	idempotencyFingerprint: IdempotencyFingerprint;

	constructor(
		config: ResolvedConfig,
		readonly clients: ClientRegistry,
		readonly store: TransactionStore,
		private readonly idempotency: IdempotencyStore,
		private readonly directory: Directory,
		private readonly clock: SandboxClock,
		private readonly counters: Counters,
		readonly envelopeContext: EnvelopeContext,
	) {
		this.idempotencyFingerprint = config.idempotencyFingerprint;
	}

	onStatusChange(listener: StatusChangeListener): void {
		this.listeners.push(listener);
	}

	envelope(tx: Transaction): TransactionEnvelope {
		return toEnvelope(tx, this.clients.get(tx.clientId), this.envelopeContext);
	}

	private rawFingerprint(rawBody: Buffer): string {
		return createHash('sha256').update(rawBody).digest('hex');
	}

	/** The body's fields, key order ignored and an encrypted `pin` read as its plain value; undefined when it is not a JSON object. */
	private semanticFingerprint(client: ClientState, parsed: unknown): string | undefined {
		if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
		const normalized: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
		if (typeof normalized.pin === 'string' && client.settings.rsaPrivateKeyPem) {
			const reading = readPin(normalized.pin, client.settings.rsaPrivateKeyPem);
			if (reading.kind !== 'undecryptable') normalized.pin = reading.value;
		}
		return createHash('sha256').update(stableStringify(normalized)).digest('hex');
	}

	/** Whether a repeated key's body is the body first sent under it, by the comparison in force. */
	private isSameBody(previous: IdempotencyRecord, raw: string, semantic: string | undefined): boolean {
		if (this.idempotencyFingerprint === 'raw') return previous.rawFingerprint === raw;
		return (previous.semanticFingerprint ?? previous.rawFingerprint) === (semantic ?? raw);
	}

	/** Synchronous from idempotency lookup to commit, so concurrent requests with one key cannot both create. */
	create(resource: Resource, client: ClientState, rawBody: Buffer, idempotencyKey: string | undefined): CreateOutcome {
		let parsed: unknown;
		try {
			parsed = JSON.parse(rawBody.toString('utf8'));
		} catch {
			throw validationError({ body: 'must be valid JSON' });
		}
		if (idempotencyKey !== undefined && (idempotencyKey.trim().length === 0 || idempotencyKey.length > 255)) {
			throw validationError({ 'idempotency-key': 'must be a non-empty string of at most 255 characters (a UUID is recommended)' });
		}
		const rawFingerprint = this.rawFingerprint(rawBody);
		const semanticFingerprint = this.semanticFingerprint(client, parsed);
		if (idempotencyKey !== undefined) {
			const previous = this.idempotency.get(client.clientId, idempotencyKey);
			if (previous) {
				if (!this.isSameBody(previous, rawFingerprint, semanticFingerprint)) {
					const sameFields = semanticFingerprint !== undefined && previous.semanticFingerprint === semanticFingerprint;
					throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'idempotency-key was already used with a different body', {
						idempotency_key: idempotencyKey,
						original_reference: previous.reference,
						comparison: this.idempotencyFingerprint,
						// A strict comparison's conflict may be one of encoding only (field order, the PIN encrypted again).
						same_fields: sameFields,
					});
				}
				this.counters.idempotentReplays++;
				return { status: previous.status, body: previous.body, replayed: true, reference: previous.reference };
			}
		}

		const validation = validateCreate(resource, parsed);
		if (!validation.ok) throw validationError(validation.fields);
		const request = validation.request;
		if (!(CHANNELS as readonly string[]).includes(request.channel)) {
			throw new ApiError(400, 'CHANNEL_NOT_SUPPORTED', `channel ${request.channel} is not supported`, {
				channel: request.channel,
				supported_channels: [...CHANNELS],
			});
		}
		const wallet = this.resolveWallet(client, request);
		this.assertPin(client, request.pin);
		const counterpart = this.resolveCounterpart(request);
		const nowMs = this.clock.now();
		if (resource === 'payout') {
			if (wallet.balance < request.amount) {
				throw new ApiError(402, 'INSUFFICIENT_FUNDS', 'payout amount exceeds the available balance', {
					available_balance: wallet.balance,
					requested_amount: request.amount,
					currency: wallet.currency,
				});
			}
			assertPayoutWithinLimits(client, this.store, request.amount, request.currency, nowMs);
		}

		const tx = this.commit(client, request, wallet, counterpart, idempotencyKey ?? null, nowMs);
		const ack: Record<string, unknown> = { success: true, reference: tx.reference };
		if (resource === 'charge' && tx.channel === 'platform') ack.redirect_link = this.envelopeContext.redirectLink(tx.reference);
		const body = JSON.stringify(ack);
		if (idempotencyKey !== undefined) {
			this.idempotency.put(client.clientId, idempotencyKey, { rawFingerprint, semanticFingerprint, status: 201, body, reference: tx.reference });
			this.counters.countCreate(idempotencyKey);
		}
		this.announce(tx);
		this.scheduleFinalize(tx);
		return { status: 201, body, replayed: false, reference: tx.reference };
	}

	private resolveWallet(client: ClientState, request: CreateRequest): WalletSettings {
		const wallet = request.accountNumber === undefined ? client.defaultWalletFor(request.currency) : client.wallet(request.accountNumber);
		if (!wallet) {
			if (request.accountNumber === undefined) {
				throw validationError({ currency: `the merchant has no ${request.currency} wallet` });
			}
			throw new ApiError(404, 'ACCOUNT_NOT_FOUND', 'account_number does not belong to the merchant', {
				account_number: request.accountNumber,
			});
		}
		if (wallet.currency !== request.currency) {
			throw validationError({ currency: `does not match the currency ${wallet.currency} of account ${wallet.number}` });
		}
		return wallet;
	}

	private assertPin(client: ClientState, pin: string): void {
		const reading = readPin(pin, client.settings.rsaPrivateKeyPem ?? '');
		if (reading.kind === 'undecryptable') throw validationError({ pin: 'looks encrypted but could not be decrypted' });
		if (!pinMatches(reading.value, client.settings.pin)) throw new ApiError(403, 'INVALID_PIN', 'the wallet PIN is incorrect');
	}

	private resolveCounterpart(request: CreateRequest): Transaction['counterpart'] {
		const { identifier, type } = request.party;
		const resolution = this.directory.resolve(identifier, type, request.accountType);
		const isCharge = request.resource === 'charge';
		if (resolution.outcome === 'not_found') {
			throw new ApiError(
				404,
				isCharge ? 'PAYER_NOT_FOUND' : 'BENEFICIARY_NOT_FOUND',
				`${isCharge ? 'payer' : 'beneficiary'} could not be resolved`,
				{ [partyField(request.resource)]: { identifier, type }, ...(request.accountType ? { [accountTypeField(request.resource)]: request.accountType } : {}) },
			);
		}
		if (resolution.outcome === 'not_eligible') {
			throw new ApiError(
				400,
				isCharge ? 'PAYER_NOT_ELIGIBLE' : 'BENEFICIARY_NOT_ELIGIBLE',
				isCharge ? 'payer exists but cannot be charged' : 'beneficiary exists but cannot receive funds',
				{ [partyField(request.resource)]: { identifier, type } },
			);
		}
		const entry = resolution.entry;
		const nameResolved = type === 'gm_account' || request.accountType !== undefined;
		return {
			identifier,
			type,
			accountType: request.accountType ?? entry?.accountType ?? null,
			name: nameResolved && entry ? entry.name : null,
		};
	}

	private commit(
		client: ClientState,
		request: CreateRequest,
		wallet: WalletSettings,
		counterpart: Transaction['counterpart'],
		idempotencyKey: string | null,
		nowMs: number,
	): Transaction {
		if (request.resource === 'payout') {
			wallet.balance -= request.amount;
			recordPayoutForVelocity(client, nowMs);
		}
		const tx: Transaction = {
			reference: randomId(request.resource === 'charge' ? 'chg_' : 'pay_'),
			uniqueId: randomId('TXN', 8).toUpperCase(),
			clientId: client.clientId,
			resource: request.resource,
			status: 'PENDING',
			amount: request.amount,
			currency: request.currency,
			channel: request.channel as Channel,
			counterpart,
			walletNumber: wallet.number,
			message: request.message,
			paymentReference: request.paymentReference,
			metadata: request.metadata,
			idempotencyKey,
			createdAt: nowMs,
			updatedAt: nowMs,
			balanceAfter: wallet.balance,
			seq: this.store.allocateSeq(),
		};
		this.store.add(tx);
		return tx;
	}

	private announce(tx: Transaction): void {
		for (const listener of this.listeners) listener(tx);
	}

	private scheduleFinalize(tx: Transaction): void {
		if (this.finalizeAfterMs === null || this.finalizeAfterMs === undefined) return;
		const timer = setTimeout(() => {
			this.finalizeTimers.delete(timer);
			if (tx.status === 'PENDING') this.setStatus(tx.reference, 'COMPLETED');
		}, this.finalizeAfterMs);
		timer.unref();
		this.finalizeTimers.add(timer);
	}

	setStatus(reference: string, next: Status): Transaction {
		const tx = this.store.byRef(reference);
		if (!tx) throw new TransitionError('not_found', `no transaction ${reference}`);
		const allowed = ALLOWED_TRANSITIONS[tx.status];
		if (!allowed.includes(next) || (next === 'REVERSED' && tx.resource !== 'payout')) {
			throw new TransitionError('invalid_transition', `${tx.resource} ${reference} cannot move from ${tx.status} to ${next}`);
		}
		const wallet = this.clients.get(tx.clientId)?.wallet(tx.walletNumber);
		if (wallet) {
			if (tx.resource === 'charge' && next === 'COMPLETED') {
				wallet.balance += tx.amount;
				tx.balanceAfter = wallet.balance;
			}
			if (tx.resource === 'payout' && REFUNDING_STATUSES.has(next)) wallet.balance += tx.amount;
		}
		tx.status = next;
		tx.updatedAt = this.clock.now();
		this.announce(tx);
		return tx;
	}

	close(): void {
		for (const timer of this.finalizeTimers) clearTimeout(timer);
		this.finalizeTimers.clear();
	}
}
