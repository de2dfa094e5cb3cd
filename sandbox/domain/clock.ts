export class SandboxClock {
	private offsetMs = 0;

	now(): number {
		return Date.now() + this.offsetMs;
	}

	nowSeconds(): number {
		return Math.floor(this.now() / 1000);
	}

	setOffsetSeconds(offsetSeconds: number): void {
		this.offsetMs = Math.round(offsetSeconds * 1000);
	}

	offsetSeconds(): number {
		return this.offsetMs / 1000;
	}

	httpDate(): string {
		return new Date(this.now()).toUTCString();
	}
}
