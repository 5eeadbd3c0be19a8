import { anonymousPage, credentials, expect, test } from "../support/fixtures";
import { screenshot } from "../support/helpers";

test("signing in through the login page, refused with a wrong password, and signing out", async ({ browser }) => {
  const { page, dialogs, close } = await anonymousPage(browser);
  const { username, password } = credentials();

  // A private page without a session goes to the login page and comes back after it.
  await page.goto("/?q=nothing-here");
  await page.waitForURL(/\/login\?next=/);
  await expect(page.getByRole("heading", { name: "Sign in to Rootline" })).toBeVisible();
  await screenshot(page, "login");

  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(`${password}-wrong`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  await expect(page).toHaveURL(/\/login/);

  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Incidents" })).toBeVisible();
  expect(new URL(page.url()).searchParams.get("q")).toBe("nothing-here");
  await expect(page.getByLabel("Signed in as")).toContainText(username);

  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === "rootline_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/login/);
  const me = await page.request.get("/api/auth/me");
  expect(me.status()).toBe(401);
  expect(dialogs).toEqual([]);
  await close();
});
