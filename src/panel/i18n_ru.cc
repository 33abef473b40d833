// The panel's Russian: one entry per English string the pages use (panel/i18n.h). The
// tests render every page in Russian and fail on a string this table lacks; they also
// check that both sides name the same {placeholders} and that count messages ({n}) have
// their three forms — one|few|many: 1 сессия, 2 сессии, 5 сессий.
#include "panel/i18n.h"

namespace qeli::panel {
namespace {

constexpr Translation kRussian[] = {
    // The header and the page titles.
    {"Dashboard", "Обзор"},
    {"Sessions", "Сеансы"},
    {"Users", "Пользователи"},
    {"Lockouts", "Блокировки"},
    {"Events", "События"},
    {"Config", "Конфигурация"},
    {"Webhooks", "Вебхуки"},
    {"API tokens", "API-токены"},
    {"Admins", "Администраторы"},
    {"Audit", "Аудит"},
    {"Log out", "Выйти"},
    {"Log in", "Вход"},
    {"Live sessions", "Активные сеансы"},
    {"Server config", "Конфигурация сервера"},
    {"Config version {id}", "Версия конфигурации {id}"},
    {"User {user}", "Пользователь {user}"},
    {"Edit {user}", "Изменение: {user}"},
    {"Device link", "Ссылка устройства"},
    {"Webhook deliveries", "Доставка вебхуков"},
    {"Audit log", "Журнал аудита"},
    {"Account", "Учётная запись"},
    {"Server unavailable", "Сервер недоступен"},
    {"The VPN server did not answer: {error}", "VPN-сервер не ответил: {error}"},

    // Login.
    {"User name", "Имя пользователя"},
    {"Password", "Пароль"},
    {"Code from your authenticator app", "Код из приложения-аутентификатора"},
    {"The form is too large.", "Форма слишком велика."},
    {"The form could not be read.", "Не удалось прочитать форму."},
    {"Too many failed logins; try again later.",
     "Слишком много неудачных попыток входа; попробуйте позже."},
    {"Wrong user name or password.", "Неверное имя пользователя или пароль."},
    {"Wrong user name, password or code.", "Неверное имя пользователя, пароль или код."},

    // The dashboard.
    {"live sessions", "активных сеансов"},
    {"users", "пользователей"},
    {"disabled users", "отключённых пользователей"},
    {"locked-out sources", "заблокированных адресов"},
    {"received since start", "получено с запуска"},
    {"sent since start", "отправлено с запуска"},
    {"uptime", "время работы"},
    {"version", "версия"},
    {"Profiles", "Профили"},
    {"Recent events", "Последние события"},
    {"Host", "Хост"},
    {"CPU busy ({n} CPUs, since the last view)",
     "загрузка ЦП ({n} ядро, с прошлого просмотра)|загрузка ЦП ({n} ядра, с прошлого "
     "просмотра)|загрузка ЦП ({n} ядер, с прошлого просмотра)"},
    {"load 1 / 5 / 15 min", "средняя нагрузка за 1 / 5 / 15 мин"},
    {"memory in use", "занято памяти"},
    {"{used} of {total}", "{used} из {total}"},
    {"Traffic, the last 24 hours", "Трафик за последние 24 часа"},
    {"No history: {why}", "Истории нет: {why}"},
    {"Traffic, the last {n} hours, in Mbit/s (5-minute averages)",
     "Трафик за последний {n} час, Мбит/с (средние за 5 минут)|Трафик за последние {n} "
     "часа, Мбит/с (средние за 5 минут)|Трафик за последние {n} часов, Мбит/с (средние за "
     "5 минут)"},
    {"{hours} h ago", "{hours} ч назад"},
    {"now", "сейчас"},
    {"peak {rate} Mbit/s", "пик {rate} Мбит/с"},
    {"down", "загрузка"},
    {"up", "отдача"},

    // One live session's page.
    {"Session {id} of {user}", "Сеанс {id} пользователя {user}"},
    {"No such session: it has ended, or never was.",
     "Такого сеанса нет: он завершён или не существовал."},
    {"Encryption", "Шифрование"},
    {"TCP streams", "TCP-потоки"},
    {"Address changes (roaming)", "Смены адреса (роуминг)"},
    {"Bandwidth limit", "Ограничение скорости"},
    {"{rate} Mbit/s", "{rate} Мбит/с"},
    {"unlimited", "без ограничения"},
    {"Back to the sessions", "К списку сеансов"},
    {"Traffic", "Трафик"},
    {"Direction", "Направление"},
    {"Packets", "Пакеты"},
    {"Bytes", "Байты"},
    {"Now", "Сейчас"},
    {"Received from the client", "Принято от клиента"},
    {"Sent to the client", "Отправлено клиенту"},
    {"Dropped packets", "Отброшенные пакеты"},
    {"Counter", "Счётчик"},
    {"Total", "Всего"},
    {"Every counter", "Все счётчики"},
    {"Value", "Значение"},
    {"The server reports no counter list.", "Сервер не передаёт список счётчиков."},
    {"Neither IPv4 nor IPv6 (garbage)", "Ни IPv4, ни IPv6 (мусор)"},
    {"IPv6 from or to a client that did not negotiate it",
     "IPv6 от клиента или к клиенту, который его не согласовал"},
    {"Source is not the client's tunnel address or subnet",
     "Источник — не адрес клиента в туннеле и не его подсеть"},
    {"Refused by policy: client_to_client, allowed_networks or link-scope multicast",
     "Запрещено политикой: client_to_client, allowed_networks или multicast в пределах канала"},
    {"The session's queue was full", "Очередь сеанса была заполнена"},
    {"Replayed, or older than the replay window", "Повтор или старше окна защиты от повторов"},
    {"The kernel refused the packet on the TUN", "Ядро не приняло пакет на TUN"},
    {"A GSO chunk out of order or with bad metadata, or a super-packet that could not be split",
     "Часть GSO не по порядку или с неверными метаданными, либо суперпакет, который не удалось "
     "разделить"},
    {"Larger than one record or the client's MTU holds",
     "Больше, чем вмещает одна запись или MTU клиента"},

    // Table headings.
    {"User", "Пользователь"},
    {"Device", "Устройство"},
    {"Profile", "Профиль"},
    {"Tunnel address", "Адрес в туннеле"},
    {"Peer", "Адрес клиента"},
    {"Connected", "Подключён"},
    {"Received", "Получено"},
    {"Sent", "Отправлено"},
    {"Client", "Клиент"},
    {"Receiving", "Приём, сейчас"},
    {"Sending", "Передача, сейчас"},
    {"Drops", "Отброшено"},
    {"{size}/s", "{size}/с"},
    {"Time (UTC)", "Время (UTC)"},
    {"Event", "Событие"},
    {"Address", "Адрес"},
    {"Reason", "Причина"},
    {"Transport", "Транспорт"},
    {"Mode", "Режим"},
    {"Port", "Порт"},
    {"TLS target", "Цель TLS"},
    {"UDP receive buffer", "Буфер приёма UDP"},
    {"UDP kernel drops", "Потери UDP в ядре"},
    {"UDP buffer grows", "Рост буфера UDP"},
    {"Group", "Группа"},
    {"State", "Состояние"},
    {"Static IP", "Статический IP"},
    {"Down", "Загружено"},
    {"Up", "Отдано"},
    {"Quota", "Квота"},
    {"Expires (UTC)", "Истекает (UTC)"},
    {"Notes", "Заметки"},
    {"Source", "Источник"},
    {"Failures", "Неудач"},
    {"Time left", "Осталось"},
    {"Severity", "Важность"},
    {"Line", "Строка"},
    {"Section", "Раздел"},
    {"Key", "Ключ"},
    {"Message", "Сообщение"},
    {"Version", "Версия"},
    {"Saved (UTC)", "Сохранено (UTC)"},
    {"By", "Кем"},
    {"Size", "Размер"},
    {"Name", "Имя"},
    {"Id", "ID"},
    {"Scopes", "Права"},
    {"Created (UTC)", "Создан (UTC)"},
    {"Last used", "Последнее использование"},
    {"Result", "Результат"},
    {"HTTP status", "Статус HTTP"},
    {"Detail", "Подробности"},
    {"Who", "Кто"},
    {"From", "Откуда"},
    {"Action", "Действие"},
    {"On", "Объект"},
    {"Role", "Роль"},

    // Sessions, users, lockouts, events.
    {"No live sessions.", "Активных сеансов нет."},
    {"Kick", "Отключить"},
    {"Kick all", "Отключить все"},
    {"No events yet.", "Событий пока нет."},
    {"No users.", "Пользователей нет."},
    {"enabled", "включён"},
    {"disabled", "отключён"},
    {"disabled (config)", "отключён (в конфигурации)"},
    {"all", "все"},
    {"none", "нет"},
    {"never", "никогда"},
    {"any", "любые"},
    {"Enable", "Включить"},
    {"Disable", "Отключить"},
    {"No lockouts in force.", "Действующих блокировок нет."},
    {"Lift every lockout", "Снять все блокировки"},
    {"(every user)", "(все пользователи)"},
    {"Unblock", "Разблокировать"},

    // The config editor.
    {"Valid: check-config finds nothing.",
     "Конфигурация корректна: check-config замечаний не нашёл."},
    {"Valid, with {n} warning(s) below.",
     "Конфигурация корректна, но есть {n} предупреждение (ниже).|Конфигурация корректна, но "
     "есть {n} предупреждения (ниже).|Конфигурация корректна, но есть {n} предупреждений "
     "(ниже)."},
    {"{n} error(s): check-config refuses this file.",
     "{n} ошибка: check-config не примет этот файл.|{n} ошибки: check-config не примет этот "
     "файл.|{n} ошибок: check-config не примет этот файл."},
    {"{path} — saved only if check-config accepts it and no hook or file path changes; the "
     "previous file goes to the history, then the server reloads.",
     "{path} — сохраняется, только если check-config его принимает, а хуки и пути к файлам "
     "не меняются; прежний файл уходит в историю, затем сервер перезагружает конфигурацию."},
    {"Validate", "Проверить"},
    {"Save and reload", "Сохранить и перезагрузить"},
    {"History", "История"},
    {"No saved versions yet.", "Сохранённых версий пока нет."},
    {"View", "Открыть"},
    {"Restore this version", "Восстановить эту версию"},
    {"Back to the editor", "Назад к редактору"},
    {"Not restored: {error}", "Не восстановлено: {error}"},
    {"Not saved: fix the errors below first.", "Не сохранено: сначала исправьте ошибки ниже."},
    {"Not saved: {error}", "Не сохранено: {error}"},

    // Messages after an action.
    {"Ended {n} session(s).", "Завершён {n} сеанс.|Завершено {n} сеанса.|Завершено {n} сеансов."},
    {"User disabled; ended {n} session(s).",
     "Пользователь отключён; завершён {n} сеанс.|Пользователь отключён; завершено {n} "
     "сеанса.|Пользователь отключён; завершено {n} сеансов."},
    {"User removed; ended {n} session(s).",
     "Пользователь удалён; завершён {n} сеанс.|Пользователь удалён; завершено {n} "
     "сеанса.|Пользователь удалён; завершено {n} сеансов."},
    {"User saved; the server reloaded (ended {n} session(s)).",
     "Пользователь сохранён; сервер перезагрузил конфигурацию (завершён {n} "
     "сеанс).|Пользователь сохранён; сервер перезагрузил конфигурацию (завершено {n} "
     "сеанса).|Пользователь сохранён; сервер перезагрузил конфигурацию (завершено {n} "
     "сеансов)."},
    {"Device revoked; ended {n} session(s).",
     "Устройство отозвано; завершён {n} сеанс.|Устройство отозвано; завершено {n} "
     "сеанса.|Устройство отозвано; завершено {n} сеансов."},
    {"User enabled.", "Пользователь включён."},
    {"Lockout lifted.", "Блокировка снята."},
    {"Every lockout lifted.", "Все блокировки сняты."},
    {"The server refused the action (see the panel's log).",
     "Сервер отказался выполнить действие (подробности в журнале панели)."},
    {"User added: give each device a link of its own below.",
     "Пользователь добавлен: ниже выдайте каждому устройству собственную ссылку."},
    {"API token revoked.", "API-токен отозван."},
    {"Admin removed; its sessions ended.", "Администратор удалён; его сеансы завершены."},
    {"Role changed; that admin's sessions ended.",
     "Роль изменена; сеансы этого администратора завершены."},
    {"Not changed: the current password is wrong.", "Не изменено: текущий пароль неверен."},
    {"Not changed: the new password needs 12..256 characters, typed the same twice.",
     "Не изменено: новый пароль должен быть длиной от 12 до 256 символов и дважды введён "
     "одинаково."},
    {"Saved; the server reloaded the config.", "Сохранено; сервер перезагрузил конфигурацию."},
    {"Restored that version; the server reloaded the config.",
     "Эта версия восстановлена; сервер перезагрузил конфигурацию."},
    {"Nothing to save: the text is the file's already.",
     "Сохранять нечего: в файле уже этот текст."},
    {"Saved, but the server refused to reload it and keeps running the previous "
     "configuration: {error}",
     "Сохранено, но сервер отказался перезагрузить конфигурацию и работает с прежней: {error}"},
    {"Restored, but the server refused to reload it and keeps running the previous "
     "configuration: {error}",
     "Восстановлено, но сервер отказался перезагрузить конфигурацию и работает с прежней: "
     "{error}"},
    {"no reason given", "причина не указана"},

    // Users and devices.
    {"New user", "Новый пользователь"},
    {"Add user", "Добавить пользователя"},
    {"Max sessions", "Макс. сеансов"},
    {"comma-separated; empty = every profile", "через запятую; пусто = все профили"},
    {"The user gets no password: each device gets a link of its own (revoked alone), on the "
     "user's page.",
     "Пароля у пользователя нет: каждое устройство получает собственную ссылку (её можно "
     "отозвать отдельно) на странице пользователя."},
    {"group default / unlimited", "по умолчанию группы / без ограничения"},
    {"Routes", "Маршруты"},
    {"Allowed networks", "Разрешённые сети"},
    {"Defined in", "Где задан"},
    {"Edit limits", "Изменить ограничения"},
    {"(group, profiles, static IP, sessions, bandwidth, quota, expiry, routes, allowed "
     "networks)",
     "(группа, профили, статический IP, сеансы, скорость, квота, срок действия, маршруты, "
     "разрешённые сети)"},
    {"Devices", "Устройства"},
    {"No devices: add one below to get its link.",
     "Устройств нет: добавьте устройство ниже, чтобы получить его ссылку."},
    {"Revoke", "Отозвать"},
    {"Add a device", "Добавить устройство"},
    {"Device name", "Имя устройства"},
    {"Server address", "Адрес сервера"},
    {"the address clients dial", "адрес, к которому подключаются клиенты"},
    {"Add device and show its link", "Добавить устройство и показать ссылку"},
    {"Remove", "Удалить"},
    {"Remove {user}", "Удалить {user}"},
    {"Deletes the user from the users file; every session and device link of theirs ends.",
     "Удаляет пользователя из файла пользователей; все его сеансы и ссылки устройств "
     "перестают действовать."},
    {"Device {device} (id {id}) of {user} added. Its link carries the device's own credential "
     "and is shown only now (the server keeps just a hash): scan the QR code with the qeli app, "
     "or copy the link. Revoking the device ends only this link.",
     "Устройство {device} (идентификатор {id}) пользователя {user} добавлено. Ссылка содержит "
     "собственный ключ устройства и показывается только сейчас (сервер хранит лишь хеш): "
     "отсканируйте QR-код в приложении qeli или скопируйте ссылку. Отзыв устройства "
     "отключает только эту ссылку."},
    {"Credential:", "Ключ доступа:"},
    {"QR code of the link", "QR-код ссылки"},
    {"The link is too long for a QR code; copy it instead.",
     "Ссылка слишком длинная для QR-кода; скопируйте её."},
    {"Link for profile {profile}:", "Ссылка для профиля {profile}:"},
    {"Back to {user}", "Назад к {user}"},

    // The "Edit user" form.
    {"empty = no group", "пусто = без группы"},
    {"empty = from the pool", "пусто = из пула"},
    {"0 = the group's / unlimited", "0 = как у группы / без ограничения"},
    {"Bandwidth limit (Mbit/s)", "Ограничение скорости (Мбит/с)"},
    {"0 = unlimited", "0 = без ограничения"},
    {"Data limit (GB)", "Ограничение трафика (ГБ)"},
    {"Expires at (unix seconds)", "Истекает (секунды Unix)"},
    {"empty or 0 = never", "пусто или 0 = никогда"},
    {"Expires: {when}", "Истекает: {when}"},
    {"comma-separated CIDRs; empty = any destination",
     "CIDR через запятую; пусто = любые адреса назначения"},
    {"one per line: a.b.c.d/n [gateway=a.b.c.d] [metric=n]; empty = the profile's routes",
     "по одному в строке: a.b.c.d/n [gateway=a.b.c.d] [metric=n]; пусто = маршруты профиля"},
    {"Enabled (the config's switch; Disable on the users page is the live one)",
     "Включён (переключатель в конфигурации; кнопка «Отключить» на странице пользователей "
     "действует сразу)"},
    {"Save", "Сохранить"},
    {"The server checks the change as its start-up would and refuses what start-up would "
     "refuse; then it reloads.",
     "Сервер проверяет изменение так же, как при запуске, и отклоняет то, что отклонил бы "
     "запуск; затем перезагружает конфигурацию."},

    // API tokens.
    {"No API tokens.", "API-токенов нет."},
    {"(expired)", "(истёк)"},
    {"{time} from {ip}", "{time} с адреса {ip}"},
    {"New token", "Новый токен"},
    {"Expires in (days)", "Срок действия (дней)"},
    {"Create token", "Создать токен"},
    {"Use it as <code>Authorization: Bearer &lt;token&gt;</code> on <code>/api/v1/</code> and "
     "<code>/metrics</code>. It is shown once; the panel keeps only its SHA-256.",
     "Передавайте его как <code>Authorization: Bearer &lt;token&gt;</code> в запросах к "
     "<code>/api/v1/</code> и <code>/metrics</code>. Токен показывается один раз; панель "
     "хранит только его SHA-256."},
    {"API tokens are off: {why}", "API-токены отключены: {why}"},
    {"Not created: {error}", "Не создано: {error}"},
    {"Token {name} (id {id}, scopes {scopes}, expires {expires} UTC) created. Copy it now: it "
     "is shown only once.",
     "Токен {name} (идентификатор {id}, права {scopes}, истекает {expires} UTC) создан. "
     "Скопируйте его сейчас: он показывается только один раз."},
    {"Back to the tokens", "Назад к токенам"},

    // Webhooks and the audit log.
    {"Webhooks are off: set <code>[webhooks] enabled = true</code> and a <code>url</code> in "
     "the server config (docs/OPERATIONS.md \"Webhooks\").",
     "Вебхуки отключены: задайте <code>[webhooks] enabled = true</code> и <code>url</code> в "
     "конфигурации сервера (docs/OPERATIONS.md, раздел «Webhooks»)."},
    {"{n} event(s) waiting in the outbox for a delivery or a retry.",
     "{n} событие ждёт в очереди доставки или повторной попытки.|{n} события ждут в очереди "
     "доставки или повторной попытки.|{n} событий ждут в очереди доставки или повторной "
     "попытки."},
    {"No delivery attempted yet.", "Попыток доставки пока не было."},
    {"No audit log: {why}", "Журнала аудита нет: {why}"},
    {"Nothing recorded yet.", "Записей пока нет."},

    // Admins and the account page.
    {"password: <code>qeli set-web-password</code>", "пароль: <code>qeli set-web-password</code>"},
    {"Set", "Задать"},
    {"New admin", "Новый администратор"},
    {"Create admin", "Создать администратора"},
    {"owner: everything; admin: users, devices, sessions, lockouts; read-only: looks only. The "
     "password is generated and shown once; the admin changes it on its Account page.",
     "owner — всё; admin — пользователи, устройства, сеансы, блокировки; read-only — только "
     "просмотр. Пароль создаётся автоматически и показывается один раз; администратор меняет "
     "его на странице «Учётная запись»."},
    {"Change your password", "Смена пароля"},
    {"Current password", "Текущий пароль"},
    {"New password", "Новый пароль"},
    {"Again", "Ещё раз"},
    {"Change", "Сменить"},
    {"Every session of yours ends; log in again with the new password.",
     "Все ваши сеансы завершатся; войдите снова с новым паролем."},
    {"You are <b>{admin}</b>, role <b>{role}</b>.", "Вы — <b>{admin}</b>, роль <b>{role}</b>."},
    {"Your password is the server config's <code>[web] password_hash</code>: change it on the "
     "server with <code>qeli set-web-password</code>.",
     "Ваш пароль — это <code>[web] password_hash</code> в конфигурации сервера: меняйте его "
     "на сервере командой <code>qeli set-web-password</code>."},
    {"Further admins are off: {why}", "Дополнительные администраторы отключены: {why}"},
    {"Admin {name} ({role}) created. Its password is shown only once:",
     "Администратор {name} ({role}) создан. Его пароль показывается только один раз:"},
    {"Back to the admins", "Назад к администраторам"},
    {"Second factor", "Второй фактор"},
    {"Remove second factor", "Убрать второй фактор"},
    {"End its sessions", "Завершить его сеансы"},
    {"That admin's sessions ended.", "Сеансы этого администратора завершены."},
    {"Second factor removed; that admin's sessions ended (it logs in with its password and "
     "can set up a new one).",
     "Второй фактор убран; сеансы этого администратора завершены (он входит по паролю и "
     "может настроить новый)."},

    // An admin's own second factor.
    {"Scan this with an authenticator app (or type the key), then enter the code it shows. "
     "The second factor is on only after a right code.",
     "Отсканируйте код приложением-аутентификатором (или введите ключ вручную), затем введите "
     "показанный им код. Второй фактор включится только после верного кода."},
    {"QR code of the authenticator key", "QR-код ключа для аутентификатора"},
    {"Key:", "Ключ:"},
    {"Turn on", "Включить"},
    {"Turn off", "Выключить"},
    {"Set up", "Настроить"},
    {"Second factor: on", "Второй фактор: включён"},
    {"Second factor: off", "Второй фактор: выключен"},
    {"A one-time code from an authenticator app at every login (RFC 6238).",
     "Одноразовый код из приложения-аутентификатора при каждом входе (RFC 6238)."},
    {"Your second factor is the server config's <code>[web] totp_secret</code>: <code>qeli "
     "set-web-totp</code> on the server.",
     "Ваш второй фактор — это <code>[web] totp_secret</code> в конфигурации сервера: команда "
     "<code>qeli set-web-totp</code> на сервере."},
    {"That code is not the current one; try again.", "Это не текущий код; попробуйте ещё раз."},

    // Refusals on a page (the JSON API says them in English, as problem details).
    {"Bad request", "Неверный запрос"},
    {"Forbidden", "Доступ запрещён"},
    {"Not found", "Не найдено"},
    {"Conflict", "Конфликт"},
    {"Unavailable", "Недоступно"},
    {"[web] state_db is empty", "не задан [web] state_db"},
    {"No such page.", "Такой страницы нет."},
    {"No such user.", "Такого пользователя нет."},
    {"No such config version.", "Такой версии конфигурации нет."},
    {"Not done: you are not logged in (or your session ended). Log in and do it again.",
     "Не выполнено: вы не вошли в панель (или ваш сеанс завершился). Войдите и повторите "
     "действие."},
    {"Not done: the request came from a page of another site, not of this panel.",
     "Не выполнено: запрос пришёл со страницы другого сайта, а не этой панели."},
    {"Not done: the form's security token is missing or stale. Open the page again and repeat.",
     "Не выполнено: защитного токена формы нет или он устарел. Откройте страницу заново и "
     "повторите действие."},
    {"Your role, {role}, cannot do this ({need} can).",
     "Ваша роль ({role}) не позволяет это сделать (это может роль {need})."},
    {"The form's field {field} has a value no page of this panel offers.",
     "В поле формы {field} значение, которого не предлагает ни одна страница этой панели."},
    {"{field}: not a whole number from 0 to {max}", "{field}: нужно целое число от 0 до {max}"},
    {"{field}: not a number", "{field}: нужно число"},
    {"Not created: a token needs a name of 1 to 64 printable characters.",
     "Не создано: имя токена должно содержать от 1 до 64 печатных символов."},
    {"Not created: choose at least one scope.", "Не создано: выберите хотя бы одно право."},
    {"Not created: a token expires within 1 to {n} days.",
     "Не создано: срок действия токена — от 1 до {n} дня.|Не создано: срок действия токена — "
     "от 1 до {n} дней.|Не создано: срок действия токена — от 1 до {n} дней."},
    {"Not created: an admin's name has 1 to {n} letters, digits or . _ @ -",
     "Не создано: имя администратора — от 1 до {n} символа: буквы, цифры или . _ @ -|Не "
     "создано: имя администратора — от 1 до {n} символов: буквы, цифры или . _ @ -|Не создано: "
     "имя администратора — от 1 до {n} символов: буквы, цифры или . _ @ -"},
    {"Not created: an admin named {name} exists.", "Не создано: администратор {name} уже есть."},

    // Logs.
    {"Logs", "Журнал"},
    {"Lowest level:", "Начиная с уровня:"},
    {"Log level", "Уровень записи"},
    {"(and above; the newest 500 lines the server and the panel keep in memory — the full log "
     "is in the journal or the [logging] file)",
     "(и выше; последние 500 строк, которые сервер и панель держат в памяти, — весь журнал "
     "в journald или в файле [logging])"},
    {"No lines at this level.", "Строк этого уровня нет."},
};

}  // namespace

std::span<const Translation> russian_table() { return kRussian; }

}  // namespace qeli::panel
