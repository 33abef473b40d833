#!/usr/bin/python3
"""A real browser against the web panel (tests/e2e/web_panel_browser.sh).

Drives Debian's headless Chromium through chromedriver with Selenium, the way an admin
uses the panel: the login form, the dashboard, Sessions → Kick, Users → Disable, a new
user with a device link (its QR code read back with zbarimg and handed to the shell, which
connects a real client with it), that session kicked and the device revoked, the config
editor (a save that adds a user, so the shell can see the reload through the control
API), a screenshot of every other page (lockouts, events, logs, audit, API tokens, webhooks,
account, a user's edit form, a config version, a live session's own page), Log out.
Asserts what the page shows, that the stylesheet applies under the panel's CSP and that
the browser logged no Content-Security-Policy violation. Saves a PNG of every page it
visits into --screens and copies each one into --artefacts at once (the run's directory
is removed at exit; the artefacts stay). Prints "FAIL: ..." and exits 1 on the first
broken expectation; every wait is bounded.

Usage: panel_browser.py --url http://127.0.0.1:8080 --username boss --password-file F
                        --user alice --screens DIR --artefacts DIR --user-data-dir DIR
                        --new-user carol --link-host HOST:PORT --link-out FILE
                        --config-append FILE
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 10  # one page, one element
T0 = time.monotonic()


class Fail(Exception):
    pass


def log(msg):
    print(f"[panel_browser {time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def xq(s):
    """An XPath string literal for s (no quote mixing in what we look for)."""
    return f"'{s}'" if "'" not in s else f'"{s}"'


class Panel:
    def __init__(self, args):
        self.a = args
        self.base = args.url.rstrip("/")
        self.shots = 0
        self.console = []  # every browser console entry, in order, with the page it came from
        os.makedirs(args.screens, exist_ok=True)
        os.makedirs(args.artefacts, exist_ok=True)
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync",
                     "--password-store=basic", "--window-size=1280,900",
                     f"--user-data-dir={args.user_data_dir}"):
            opts.add_argument(flag)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path="/usr/bin/chromedriver", log_path=args.driver_log)
        self.d = webdriver.Chrome(service=service, options=opts)
        self.d.set_page_load_timeout(15)
        self.d.set_script_timeout(5)
        log(f"chromium {self.d.capabilities.get('browserVersion', '?')} started")

    # --- helpers -------------------------------------------------------------------------
    def wait(self, cond, what, timeout=WAIT_S):
        try:
            return WebDriverWait(self.d, timeout, poll_frequency=0.1).until(cond)
        except TimeoutException:
            raise Fail(f"{what} (waited {timeout} s; at {self.d.current_url})") from None

    def find(self, xpath, what, timeout=WAIT_S):
        return self.wait(EC.presence_of_element_located((By.XPATH, xpath)), what, timeout)

    def path(self):
        u = self.d.current_url
        return u[len(self.base):] if u.startswith(self.base) else u

    def drain_console(self, page):
        try:
            for e in self.d.get_log("browser"):
                e["page"] = page
                self.console.append(e)
        except WebDriverException as e:
            raise Fail(f"cannot read the browser console log: {e}") from None

    def shot(self, name):
        """A PNG of the page as shown now, into --screens and --artefacts."""
        self.shots += 1
        fname = f"{self.shots:02d}-{name}.png"
        dst = os.path.join(self.a.screens, fname)
        if not self.d.save_screenshot(dst):
            raise Fail(f"screenshot {fname} failed")
        shutil.copy(dst, os.path.join(self.a.artefacts, fname))
        self.drain_console(name)
        log(f"page {self.path()} → {fname}")

    def click_and_wait(self, el, what):
        """Clicks el (a link or a form's submit button) and waits for the next page."""
        el.click()
        self.wait(EC.staleness_of(el), f"{what}: the page did not change")
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete",
                  f"{what}: the new page did not finish loading")

    def nav(self, label):
        link = self.find(f"//header/nav/a[normalize-space()={xq(label)}]", f"no nav link {label!r}")
        self.click_and_wait(link, f"nav link {label!r}")

    def page_text(self):
        """What the page says, shortened: for failure messages."""
        try:
            text = " ".join(self.d.find_element(By.TAG_NAME, "body").text.split())
        except WebDriverException:
            return "?"
        return text[:200]

    def message(self):
        els = self.d.find_elements(By.CSS_SELECTOR, "main p.msg")
        return els[0].text.strip() if els else None

    def styled(self, page):
        """The stylesheet applied (CSP style-src 'self'): the header is dark, not transparent."""
        header = self.find("//header", f"{page}: no <header>")
        bg = header.value_of_css_property("background-color")
        if bg in ("", "transparent", "rgba(0, 0, 0, 0)"):
            raise Fail(f"{page}: the header's background is {bg!r}: panel.css did not apply")
        margin = self.d.find_element(By.TAG_NAME, "body").value_of_css_property("margin-top")
        if margin != "0px":
            raise Fail(f"{page}: body margin-top is {margin!r}, panel.css says 0")
        log(f"{page}: header background {bg}")

    def session_ids(self, user=None):
        """The session ids in the VPN user's Kick forms on the page shown."""
        return {e.get_attribute("value") for e in self.d.find_elements(
            By.XPATH, self.row_xpath(user) + "//form[contains(@action,'/sessions/kick')]"
                                             "//input[@name='id']")}

    def row_xpath(self, user=None):
        """The table row whose first cell is the VPN user (sessions and users pages)."""
        return f"//main//table//tr[td[1][normalize-space()={xq(user or self.a.user)}]]"

    def wait_for_session(self, user, not_ids=frozenset(), timeout=30):
        """Reloads /sessions until `user` has a session whose id is not in not_ids."""
        end = time.monotonic() + timeout
        while True:
            self.d.get(self.base + "/sessions")
            ids = self.session_ids(user)
            if ids and not ids & set(not_ids):
                return ids
            if time.monotonic() > end:
                raise Fail(f"no new session of {user} on the sessions page within {timeout} s "
                           f"(sessions {ids})")
            time.sleep(0.5)

    def kick(self, user):
        """Sessions → Kick on user's row; returns the kicked ids."""
        self.nav("Sessions")
        kick = self.find(self.row_xpath(user) + "//button[normalize-space()='Kick']",
                         f"no Kick button in {user}'s row on the sessions page")
        ids = self.session_ids(user)
        self.click_and_wait(kick, "Kick")
        msg = self.message()
        if msg != "Ended 1 session(s).":
            raise Fail(f"after Kick the page says {msg!r}, not 'Ended 1 session(s).'")
        return ids

    def fill(self, xpath, value, what):
        el = self.find(xpath, what)
        el.clear()
        el.send_keys(value)
        return el

    # --- the scenario --------------------------------------------------------------------
    def run(self):
        u = self.a.user
        # Anonymous: / lands on the login page.
        self.d.get(self.base + "/")
        self.wait(EC.url_to_be(self.base + "/login"), "/ did not redirect to /login")
        self.find("//form[contains(@class,'login')]//input[@name='username']", "no login form")
        self.styled("login")
        self.shot("login")

        # Log in by typing into the form.
        user_in = self.d.find_element(By.NAME, "username")
        pass_in = self.d.find_element(By.NAME, "password")
        user_in.clear()
        user_in.send_keys(self.a.username)
        pass_in.clear()
        pass_in.send_keys(self.a.password)
        self.click_and_wait(self.d.find_element(By.XPATH, "//form[contains(@class,'login')]//button"),
                            "login submit")
        if self.path() != "/":
            raise Fail(f"login did not land on the dashboard but on {self.path()}: "
                       f"{self.page_text()!r}")
        self.find("//header//span[contains(@class,'who')]", "no admin name in the header")

        # The dashboard: alice in the live sessions table, styled.
        self.find("//h2[normalize-space()='Live sessions']/following-sibling::*[1][self::table]"
                  f"//tr/td[1][normalize-space()={xq(u)}]",
                  f"the dashboard's live sessions table does not show {u}")
        self.styled("dashboard")
        self.shot("dashboard")

        # Sessions → Kick alice's session.
        self.nav("Sessions")
        if self.path() != "/sessions":
            raise Fail(f"the Sessions link led to {self.path()}")
        self.shot("sessions")
        kick = self.find(self.row_xpath() + "//button[normalize-space()='Kick']",
                         f"no Kick button in {u}'s row on the sessions page")
        kicked_id = self.session_ids()
        self.click_and_wait(kick, "Kick")
        msg = self.message()
        if msg != "Ended 1 session(s).":
            raise Fail(f"after Kick the page says {msg!r}, not 'Ended 1 session(s).'")
        self.shot("sessions-kicked")
        # A kicked client reconnects by itself: wait (bounded) for her new session (another
        # id in the Kick form), so that the disable below ends a live session, not a
        # reconnect in flight.
        end = time.monotonic() + 20
        while True:
            ids = self.session_ids()
            if ids and not ids & kicked_id:
                break
            if time.monotonic() > end:
                raise Fail(f"{u} did not reconnect within 20 s after the kick (sessions {ids})")
            time.sleep(0.5)
            self.d.get(self.base + "/sessions")
        log(f"{u} reconnected: session {sorted(kicked_id)} → {sorted(ids)}")
        self.shot("sessions-reconnected")

        # Users → Disable alice.
        self.nav("Users")
        if self.path() != "/users":
            raise Fail(f"the Users link led to {self.path()}")
        state = self.find(self.row_xpath() + "/td[3]", f"{u} is not on the users page")
        if state.text.strip() != "enabled":
            raise Fail(f"{u}'s state on the users page is {state.text!r} before Disable")
        self.shot("users")
        disable = self.find(self.row_xpath() + "//button[normalize-space()='Disable']",
                            f"no Disable button in {u}'s row")
        self.click_and_wait(disable, "Disable")
        msg = self.message()
        if msg != "User disabled; ended 1 session(s).":
            raise Fail(f"after Disable the page says {msg!r}, not 'User disabled; ended 1 session(s).'")
        state = self.find(self.row_xpath() + "/td[3]", f"{u} is not on the users page")
        if state.text.strip() != "disabled":
            raise Fail(f"{u}'s state after Disable is {state.text!r}, not 'disabled'")
        if not self.d.find_elements(By.XPATH,
                                    self.row_xpath() + "//button[normalize-space()='Enable']"):
            raise Fail(f"no Enable button for the disabled {u}")
        log(f"users page: {msg!r}, {u} disabled")
        self.shot("users-disabled")

        self.devices()

        # Config: the raw editor validates the file as it is (a multipart form: the file
        # is larger than httplib's 8 KiB cap on urlencoded bodies), then saves it.
        self.nav("Config")
        if self.path() != "/config":
            raise Fail(f"the Config link led to {self.path()}")
        area = self.find("//textarea[@name='text']", "no config editor")
        if "[profile:e2e]" not in area.get_attribute("value"):
            raise Fail("the editor does not hold the server config")
        self.shot("config")
        validate = self.find("//button[normalize-space()='Validate']", "no Validate button")
        self.click_and_wait(validate, "Validate")
        msg = self.message() or ""
        if not msg.startswith("Valid"):
            raise Fail(f"after Validate the page says {msg!r}: {self.page_text()}")
        # An edit, so that the save has something to keep in the history, and one the
        # server shows only once it has reloaded: an inline user (the shell looks for it
        # through the control API).
        area = self.find("//textarea[@name='text']", "no config editor after Validate")
        with open(self.a.config_append) as f:
            extra = f.read()
        self.d.execute_script(
            "arguments[0].value += '# saved from the browser\\n' + arguments[1];", area, extra)
        save = self.find("//button[normalize-space()='Save and reload']", "no Save button")
        self.click_and_wait(save, "Save and reload")
        msg = self.message()
        if msg != "Saved; the server reloaded the config.":
            raise Fail(f"after Save the page says {msg!r}: {self.page_text()}")
        if self.d.find_elements(By.CSS_SELECTOR, "main p.err"):
            raise Fail(f"after Save the page shows an error: {self.page_text()}")
        if not self.d.find_elements(By.XPATH, "//td[normalize-space()='panel:boss']"):
            raise Fail("the saved version is not in the history as panel:boss")
        log(f"config page: validated and saved ({msg!r})")
        self.shot("config-saved")
        version = self.find("//main//table//a[contains(@href,'/config/version?id=')]",
                            "no saved version to view in the history")
        self.click_and_wait(version, "a config version")
        self.find("//button[normalize-space()='Restore this version']",
                  "the config version page has no Restore button")
        self.shot("config-version")

        self.every_page()

        # Admins: the owner makes a read-only admin (the form's default role); its
        # password is shown once, in the page and nowhere else.
        self.nav("Admins")
        if self.path() != "/admins":
            raise Fail(f"the Admins link led to {self.path()}")
        self.shot("admins")
        self.find("//form[contains(@action,'/admins/create')]//input[@name='name']",
                  "no new-admin form").send_keys("viewer")
        create = self.find("//button[normalize-space()='Create admin']", "no Create admin button")
        self.click_and_wait(create, "Create admin")
        password = self.find("//textarea[@id='password']", "no password after Create admin")
        if len(password.get_attribute("value")) != 24:
            raise Fail(f"the new admin's password is {password.get_attribute('value')!r}")
        self.shot("admin-created")
        log("admins page: made a read-only admin")

        # Log out: back on the login page, and / redirects there again.
        out = self.find("//header//button[normalize-space()='Log out']", "no Log out button")
        self.click_and_wait(out, "Log out")
        if self.path() != "/login":
            raise Fail(f"Log out led to {self.path()}, not /login")
        self.find("//input[@name='password']", "no login form after Log out")
        if self.d.find_elements(By.XPATH, "//header/nav"):
            raise Fail("the nav is still shown after Log out")
        self.shot("logged-out")
        self.d.get(self.base + "/")
        self.wait(EC.url_to_be(self.base + "/login"), "after Log out / does not redirect to /login")
        self.shot("root-after-logout")

        # No CSP violation on any page.
        with open(os.path.join(self.a.artefacts, "console.json"), "w") as f:
            json.dump(self.console, f, indent=1)
        for e in self.console:
            log(f"console [{e.get('level')}] on {e['page']}: {e.get('message')}")
        csp = [e for e in self.console if "Content Security Policy" in e.get("message", "")]
        if csp:
            raise Fail(f"{len(csp)} CSP violation(s) in the console, first on {csp[0]['page']}: "
                       f"{csp[0]['message']}")
        self.csp_control()

    def devices(self):
        """A new user, a device link read back from its QR code, the session it brings
        (the shell connects a client with the link), a kick, and the device revoked."""
        u = self.a.new_user
        self.nav("Users")
        self.fill("//form[contains(@action,'/users/add')]//input[@name='name']", u,
                  "no New user form")
        self.click_and_wait(self.find("//form[contains(@action,'/users/add')]//button",
                                      "no Add user button"), "Add user")
        if not self.path().startswith("/users/view?name=" + u):
            raise Fail(f"Add user led to {self.path()}: {self.page_text()!r}")
        msg = self.message() or ""
        if not msg.startswith("User added"):
            raise Fail(f"after Add user the page says {msg!r}")
        self.shot("user-added")

        form = "//form[contains(@action,'/devices/add')]"
        self.fill(form + "//input[@name='name']", u + "-laptop", "no Add a device form")
        self.fill(form + "//input[@name='host']", self.a.link_host, "no server address field")
        self.click_and_wait(self.find(form + "//button", "no Add device button"), "Add device")
        qr = self.find("//img[@id='device-qr']", f"no QR code on the device page: "
                                                 f"{self.page_text()!r}")
        link = self.find("//textarea[@id='device-link']", "no link on the device page")
        link = link.get_attribute("value").strip()
        if not link.startswith(f"qeli://{u}:qd1."):
            raise Fail(f"the device link is not a device credential link for {u}: {link!r}")
        self.shot("device-link")
        # Read the QR code back the way a phone would: from its pixels.
        png = os.path.join(self.a.artefacts, "device-qr.png")
        if not qr.screenshot(png):
            raise Fail("cannot take a picture of the QR code")
        try:
            out = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True,
                                 timeout=20)
        except FileNotFoundError:
            raise Fail("zbarimg is missing (scripts/bootstrap.sh installs zbar-tools)") from None
        decoded = out.stdout.strip()
        if out.returncode != 0 or decoded != link:
            raise Fail(f"zbarimg read {decoded!r} (exit {out.returncode}, {out.stderr.strip()!r}) "
                       f"from the QR code, the page's link is {link!r}")
        log(f"QR code read back: {decoded[:40]}…")
        tmp = self.a.link_out + ".tmp"
        with open(tmp, "w") as f:
            f.write(decoded + "\n")
        os.rename(tmp, self.a.link_out)  # the shell starts the client now

        ids = self.wait_for_session(u, timeout=40)
        log(f"{u}'s client is live: session {sorted(ids)}")
        self.shot("sessions-new-user")
        self.session_page(u)
        kicked = self.kick(u)
        ids = self.wait_for_session(u, not_ids=kicked, timeout=20)
        log(f"{u} reconnected after the kick: {sorted(kicked)} → {sorted(ids)}")
        self.shot("sessions-new-user-reconnected")

        self.d.get(self.base + "/users/view?name=" + u)
        revoke = self.find("//main//table//tr[td[1][normalize-space()="
                           f"{xq(u + '-laptop')}]]//button[normalize-space()='Revoke']",
                           f"no Revoke button for {u}-laptop")
        self.click_and_wait(revoke, "Revoke")
        msg = self.message()
        if msg != "Device revoked; ended 1 session(s).":
            raise Fail(f"after Revoke the page says {msg!r}")
        self.find("//p[contains(normalize-space(),'No devices')]",
                  f"{u}-laptop is still listed after Revoke")
        self.shot("device-revoked")

    def session_page(self, user):
        """The live session's own page from its link on the sessions page: packets each
        way, the drop reasons, the server's counters; on a second view its rates."""
        link = self.find(self.row_xpath(user) + "/td[1]/a[contains(@href,'/sessions/view?')]",
                         f"no link to {user}'s session page on the sessions page")
        self.click_and_wait(link, f"{user}'s session page")
        for h2 in ("Traffic", "Dropped packets", "Every counter"):
            self.find(f"//h2[normalize-space()={xq(h2)}]/following-sibling::*[1][self::table]",
                      f"{user}'s session page has no {h2!r} table: {self.page_text()!r}")
        self.find("//td[code[normalize-space()='drop_policy']]", "no drop_policy row")
        time.sleep(1.1)  # a rate needs two samples at least a second apart
        self.d.refresh()
        rate = self.find("//tr[td[1][normalize-space()='Received from the client']]/td[4]",
                         f"no rate on {user}'s session page")
        if not rate.text.strip().endswith("/s"):
            raise Fail(f"{user}'s rate on the second view is {rate.text!r}, not a rate")
        log(f"{user}'s session page: received now {rate.text.strip()}")
        self.shot("session-detail")

    def every_page(self):
        """A screenshot of each page not visited otherwise, each answered with its own
        title (not a refusal) and styled."""
        pages = [("Lockouts", "/blocked", "Lockouts"), ("Events", "/events", "Events"),
                 ("Logs", "/logs", "Logs"), ("Audit", "/audit", "Audit log"),
                 ("API tokens", "/tokens", "API tokens"),
                 ("Webhooks", "/webhooks", "Webhook deliveries")]
        for label, path, title in pages:
            self.nav(label)
            if self.path() != path:
                raise Fail(f"the {label} link led to {self.path()}")
            self.find(f"//main/h1[normalize-space()={xq(title)}]",
                      f"{path} is not the {title!r} page: {self.page_text()!r}")
            self.shot(path.strip("/"))
        for path, title, name in (("/account", "Account", "account"),
                                  (f"/users/edit?user={self.a.new_user}",
                                   f"Edit {self.a.new_user}", "user-edit")):
            self.d.get(self.base + path)
            self.find(f"//main/h1[normalize-space()={xq(title)}]",
                      f"{path} is not the {title!r} page: {self.page_text()!r}")
            self.styled(name)
            self.shot(name)

    def csp_control(self):
        """The control for the check above: an inline <style> (what the CSP forbids) added
        to the page is refused by the browser and the refusal shows in the console log."""
        self.d.execute_script(
            "const s = document.createElement('style');"
            "s.textContent = 'header{background-color:rgb(1, 2, 3) !important}';"
            "document.head.appendChild(s);")
        seen = []
        end = time.monotonic() + 5
        while not any("Content Security Policy" in e.get("message", "") for e in seen):
            if time.monotonic() > end:
                raise Fail("an inline <style> raised no CSP report in the console log: the "
                           f"console check cannot see violations ({seen})")
            time.sleep(0.2)
            seen += self.d.get_log("browser")
        bg = self.d.find_element(By.TAG_NAME, "header").value_of_css_property("background-color")
        if bg == "rgba(1, 2, 3, 1)":
            raise Fail("an inline <style> applied: the browser did not enforce the CSP")
        log("control: an injected inline <style> was refused and reported by the CSP")

    def failure_artefacts(self):
        try:
            self.shot("FAILED")
        except Exception:  # noqa: BLE001 — best effort on the way out
            pass
        try:
            with open(os.path.join(self.a.artefacts, "FAILED-page.html"), "w") as f:
                f.write(self.d.page_source)
            with open(os.path.join(self.a.artefacts, "console.json"), "w") as f:
                json.dump(self.console, f, indent=1)
        except Exception:  # noqa: BLE001
            pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--username", required=True)
    p.add_argument("--password-file", required=True)
    p.add_argument("--user", required=True, help="the VPN user to kick and disable")
    p.add_argument("--screens", required=True)
    p.add_argument("--artefacts", required=True)
    p.add_argument("--user-data-dir", required=True)
    p.add_argument("--driver-log", default=os.devnull)
    p.add_argument("--new-user", required=True, help="the VPN user to create with a device link")
    p.add_argument("--link-host", required=True, help="HOST:PORT the device link dials")
    p.add_argument("--link-out", required=True, help="where the QR code's link goes")
    p.add_argument("--config-append", required=True,
                   help="text the config edit appends (an inline user the reload brings)")
    a = p.parse_args()
    with open(a.password_file) as f:
        a.password = f.read().strip()

    # SIGTERM (the shell's timeout) → SystemExit, so that finally quits chromium.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    panel = None
    try:
        panel = Panel(a)
        panel.run()
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr, flush=True)
        if panel:
            panel.failure_artefacts()
        return 1
    except WebDriverException as e:
        print(f"FAIL: webdriver: {e.msg if hasattr(e, 'msg') else e}", file=sys.stderr, flush=True)
        if panel:
            panel.failure_artefacts()
        return 1
    finally:
        if panel:
            try:
                panel.d.quit()
            except Exception:  # noqa: BLE001
                pass
    log(f"ok: {panel.shots} screenshots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
