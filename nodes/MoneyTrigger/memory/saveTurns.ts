import { sleep } from 'n8n-workflow';

/**
 * The deliveries of one workflow in this n8n process that will have n8n save its static data, one
 * after another (docs/webhook-memory.md). Each save writes the whole memory as it is when n8n
 * serialises it, but two saves in flight at once can commit in the other order (Postgres runs them
 * on separate connections; seen on n8n 1.x with SQLite too): the row then keeps the older copy and
 * the ids committed in between exist only in this process until the next save. So a delivery that
 * will save waits until the one before it was answered (n8n saves before it answers): the last
 * copy written is always the newest.
 *
 * A delivery that has held its turn for STUCK_TURN_MS without its save having begun (its execution
 * waits for a free slot before n8n answers, or n8n never answers) stops blocking the next one, so
 * one request cannot stall a workflow's events; a queue that moves is waited for however long it
 * is. A turn whose save has begun (n8n serialised it) is waited for until it is answered, up to
 * SAVING_TURN_MS: skipping it would let the next, newer copy commit first and this older one last.
 */

export const STUCK_TURN_MS = 5_000;
/** The longest a turn whose save has begun is waited for (a database that does not answer). */
export const SAVING_TURN_MS = 120_000;

interface Turn {
	/** Resolved when the turn goes on: the one before was released, or held it too long. */
	granted: Promise<void>;
	released: Promise<void>;
	/** n8n began this turn's save (serialised the static data). */
	saving: boolean;
}

/** Ends a turn; `saving()` tells the queue that n8n began the turn's save. */
export interface HeldTurn {
	(): void;
	saving(): void;
}

export class SaveTurns {
	private last?: Turn;
	private held = 0;

	constructor(
		private readonly stuckMs = STUCK_TURN_MS,
		private readonly savingMs = SAVING_TURN_MS,
	) {}

	/** Waits for the turn, then holds it until the returned release is called. */
	async take(): Promise<HeldTurn> {
		const before = this.held > 0 ? this.last : undefined;
		this.held++;
		let released = false;
		let resolveReleased!: () => void;
		const releasedPromise = new Promise<void>((resolve) => (resolveReleased = resolve));
		const granted = before ? this.after(before) : Promise.resolve();
		const turn: Turn = { granted, released: releasedPromise, saving: false };
		this.last = turn;
		const release = (() => {
			if (released) return;
			released = true;
			this.held--;
			resolveReleased();
		}) as HeldTurn;
		release.saving = () => {
			turn.saving = true;
		};
		await granted;
		return release;
	}

	/** Turns taken and not yet released (the one going on and those waiting). */
	get pending(): number {
		return this.held;
	}

	private async after(before: Turn): Promise<void> {
		await before.granted;
		const giveUp = new AbortController();
		const heldTooLong = async (): Promise<void> => {
			await sleep(this.stuckMs, giveUp.signal);
			if (before.saving) await sleep(this.savingMs - this.stuckMs, giveUp.signal);
		};
		await Promise.race([before.released, heldTooLong().catch(() => undefined)]);
		giveUp.abort();
	}
}
