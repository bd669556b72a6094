/** CSI errors whose message is upstream's text for the event. */
import { DenoletError } from "../util/errors.ts";

/**
 * A CSI volume could not be set up; `operation` is upstream's event prefix
 * ("MountVolume.SetUp failed", "MountVolume.WaitForAttach failed").
 */
export class PluginCsiError extends DenoletError {
  constructor(
    message: string,
    readonly operation = "MountVolume.SetUp failed",
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
