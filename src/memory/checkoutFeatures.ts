/**
 * The checkout features this build runs, in the order their sections appear. The interface
 * (`CheckoutFeature`) and how contributions combine live in checkout/checkoutFeature.ts; only
 * the list lives here, at the top of the read path, because only the front (memory/service.ts)
 * may know every feature.
 *
 * Adding a feature: write a `CheckoutFeature` next to the feature's code and list it below.
 */
import { causalCheckoutFeature } from "../causal/checkoutFeature.ts";
import type { CheckoutFeature } from "../checkout/checkoutFeature.ts";
import { consolidationCheckoutFeature } from "../consolidation/checkoutFeature.ts";

export {
  type CheckoutFeature,
  checkoutFeatureContributions,
  type CheckoutFeatureContributions,
  type CheckoutFeatureInput,
  type CheckoutFeatureOutput,
} from "../checkout/checkoutFeature.ts";

export const checkoutFeatures: readonly CheckoutFeature[] = [causalCheckoutFeature, consolidationCheckoutFeature];
