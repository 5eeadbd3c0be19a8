import { Component, type ErrorInfo, type ReactNode } from "react";

/** Keeps one broken panel from blanking the page. */
export class ErrorBoundary extends Component<
  { label: string; children: ReactNode },
  { error: Error | null }
> {
  state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`${this.props.label} failed`, error, info.componentStack);
  }

  render() {
    if (this.state.error) {
      return (
        <div className="state state-error" role="alert">
          <strong>{this.props.label} could not be shown: </strong>
          <span>{this.state.error.message}</span>{" "}
          <button type="button" className="button-link" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
