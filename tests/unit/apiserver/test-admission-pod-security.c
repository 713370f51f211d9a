/* test-admission-pod-security.c: Pod Security Admission against upstream's own expectations
 * (k8s.io/pod-security-admission v0.33 policy/check_*_test.go and admission_test.go): every
 * baseline and restricted check's reason and detail, their order, the policy versions that
 * add, revise or override checks, the namespace labels, the decision on a pod request, which
 * updates are re-checked, and the namespace dry-run warnings. Tables throughout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/admission-pod-security.h"
#include "base/alloc.h"
#include "base/json.h"

/* JSON with ' for " so the tables stay readable. */
static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_error_t e;
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, 0, &e);
        if (!v)
                fail_msg("bad test JSON %s: %s", s, e.text);
        free(dup);
        return v;
}

static struct psa_level_version lv_parse(const char *s)
{
        struct psa_level_version lv = { PSA_LEVEL_PRIVILEGED, PSA_VERSION_LATEST };
        const char *colon = strchr(s, ':');

        assert_non_null(colon);
        if (strncmp(s, "baseline", 8) == 0)
                lv.level = PSA_LEVEL_BASELINE;
        else if (strncmp(s, "restricted", 10) == 0)
                lv.level = PSA_LEVEL_RESTRICTED;
        if (!streq(colon + 1, "latest"))
                lv.minor = strtoll(colon + 4, NULL, 10);
        return lv;
}

/* A restricted-compliant container and pod security context, to vary one field at a time. */
#define OK_POD_SC \
 "'securityContext':{'runAsNonRoot':true,'seccompProfile':{'type':'RuntimeDefault'}}"
#define OK_CONT_SC \
 "'securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']}}"
#define OK_CONT(n) "{'name':'" n "','image':'busybox'," OK_CONT_SC "}"
#define ROOT_DETAIL                                                                                                                                    \
 "allowPrivilegeEscalation != false (container \"c1\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container " \
 "\"c1\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c1\" must set "                               \
 "securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c1\" must set securityContext.seccompProfile.type to "                        \
 "\"RuntimeDefault\" or \"Localhost\")"

static const struct {
        const char *name;
        const char *lv;
        const char *pod;    /* {metadata, spec} */
        const char *detail; /* ForbiddenDetail; "" when allowed */
} check_cases[] = {
        /* ---- baseline ---- */
        { "plain pod passes baseline", "baseline:latest",
          "{'spec':{'containers':[{'name':'a','image':'busybox'}]}}", "" },
        { "host namespaces", "baseline:latest",
          "{'spec':{'hostNetwork':true,'hostPID':true,'hostIPC':true,'containers':[{'name':'a'}]}}",
          "host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)" },
        { "false host namespaces pass", "baseline:latest",
          "{'spec':{'hostNetwork':false,'hostPID':null,'containers':[{'name':'a'}]}}", "" },
        { "privileged", "baseline:latest",
          "{'spec':{'initContainers':[{'name':'d','securityContext':{'privileged':true}}],"
          "'containers':[{'name':'a','securityContext':{'privileged':false}},{'name':'b','securityContext':{}},"
          "{'name':'c'},{'name':'e','securityContext':{'privileged':true}}]}}",
          "privileged (containers \"d\", \"e\" must not set securityContext.privileged=true)" },
        { "capabilities beyond the baseline set", "baseline:latest",
          "{'spec':{'containers':[{'name':'a','securityContext':{'capabilities':{'add':['FOO','BAR','CHOWN']}}},"
          "{'name':'b','securityContext':{'capabilities':{'add':['BAZ','FOO']}}},"
          "{'name':'c','securityContext':{'capabilities':{'add':['NET_BIND_SERVICE','KILL']}}}]}}",
          "non-default capabilities (containers \"a\", \"b\" must not include \"BAR\", \"BAZ\", \"FOO\" in "
          "securityContext.capabilities.add)" },
        { "hostPath volumes", "baseline:latest",
          "{'spec':{'volumes':[{'name':'a','hostPath':{'path':'/'}},{'name':'e','emptyDir':{}},"
          "{'name':'b','hostPath':{}},{'name':'n','hostPath':null,'emptyDir':{}}],'containers':[{'name':'c'}]}}",
          "hostPath volumes (volumes \"a\", \"b\")" },
        { "one host port", "baseline:latest",
          "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80}]},"
          "{'name':'b','ports':[{'containerPort':80,'hostPort':20}]}]}}",
          "hostPort (container \"b\" uses hostPort 20)" },
        { "host ports, sorted as strings", "baseline:latest",
          "{'spec':{'containers':[{'name':'a'},{'name':'b','ports':[{'hostPort':20},{'hostPort':10}]},"
          "{'name':'c','ports':[{'hostPort':30},{'hostPort':0},{'hostPort':100}]}]}}",
          "hostPort (containers \"b\", \"c\" use hostPorts 10, 100, 20, 30)" },
        { "AppArmor unconfined pod", "baseline:latest",
          "{'spec':{'securityContext':{'appArmorProfile':{'type':'Unconfined'}},'containers':[{'name':'a'}]}}",
          "forbidden AppArmor profile (pod must not set AppArmor profile type to \"Unconfined\")" },
        { "AppArmor allowed types", "baseline:latest",
          "{'spec':{'securityContext':{'appArmorProfile':{'type':'RuntimeDefault'}},'containers':[{'name':'a',"
          "'securityContext':{'appArmorProfile':{'type':'Localhost','localhostProfile':'x'}}}]}}",
          "" },
        { "AppArmor unconfined init container", "baseline:latest",
          "{'spec':{'initContainers':[{'name':'bar','securityContext':{'appArmorProfile':{'type':'Unconfined'}}}],"
          "'containers':[{'name':'foo'}]}}",
          "forbidden AppArmor profile (container \"bar\" must not set AppArmor profile type to \"Unconfined\")" },
        { "AppArmor annotations", "baseline:latest",
          "{'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/':'bogus',"
          "'container.apparmor.security.beta.kubernetes.io/a':'',"
          "'container.apparmor.security.beta.kubernetes.io/b':'runtime/default',"
          "'container.apparmor.security.beta.kubernetes.io/c':'localhost/',"
          "'container.apparmor.security.beta.kubernetes.io/d':'localhost/foo',"
          "'container.apparmor.security.beta.kubernetes.io/f':'unknown',"
          "'container.apparmor.security.beta.kubernetes.io/e':'unconfined'}},'spec':{'containers':[{'name':'a'}]}}",
          "forbidden AppArmor profiles (annotations must not set AppArmor profile type to "
          "\"container.apparmor.security.beta.kubernetes.io/=\"bogus\"\", "
          "\"container.apparmor.security.beta.kubernetes.io/e=\"unconfined\"\", "
          "\"container.apparmor.security.beta.kubernetes.io/f=\"unknown\"\")" },
        { "AppArmor annotation value quoted as Go's %q", "baseline:latest",
          "{'metadata':{'annotations':{'container.apparmor.security.beta.kubernetes.io/a':'x\\ty\\\\'}},"
          "'spec':{'containers':[{'name':'a'}]}}",
          "forbidden AppArmor profile (annotation must not set AppArmor profile type to "
          "\"container.apparmor.security.beta.kubernetes.io/a=\"x\\ty\\\\\"\")" },
        { "SELinux pod and containers", "baseline:latest",
          "{'spec':{'securityContext':{'seLinuxOptions':{'type':'foo','user':'u','role':'r'}},"
          "'containers':[{'name':'a','securityContext':{'seLinuxOptions':{'type':'container_t'}}},"
          "{'name':'e','securityContext':{'seLinuxOptions':{'type':'bar'}}},"
          "{'name':'f','securityContext':{'seLinuxOptions':{'user':'x'}}},"
          "{'name':'g','securityContext':{'seLinuxOptions':{'role':'x','level':'s0'}}}]}}",
          "seLinuxOptions (pod and containers \"e\", \"f\", \"g\" set forbidden securityContext.seLinuxOptions: "
          "types \"bar\", \"foo\"; user may not be set; role may not be set)" },
        { "SELinux bad user only", "baseline:latest",
          "{'spec':{'securityContext':{'seLinuxOptions':{'user':'u'}},'containers':[{'name':'a'}]}}",
          "seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: user may not be set)" },
        { "SELinux container_engine_t before v1.31", "baseline:v1.30",
          "{'spec':{'securityContext':{'seLinuxOptions':{'type':'container_engine_t'}},'containers':[{'name':'a'}]}}",
          "seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type \"container_engine_t\")" },
        { "SELinux container_engine_t from v1.31", "baseline:v1.31",
          "{'spec':{'securityContext':{'seLinuxOptions':{'type':'container_engine_t'}},'containers':[{'name':'a'}]}}",
          "" },
        { "procMount", "baseline:latest",
          "{'spec':{'containers':[{'name':'a','securityContext':{'procMount':'Default'}},{'name':'b'},"
          "{'name':'d','securityContext':{'procMount':'Unmasked'}},{'name':'e','securityContext':{'procMount':'other'}}]}}",
          "procMount (containers \"d\", \"e\" must not set securityContext.procMount to \"Unmasked\", \"other\")" },
        { "seccomp Unconfined at baseline", "baseline:latest",
          "{'spec':{'securityContext':{'seccompProfile':{'type':'Unconfined'}},'containers':[{'name':'a'},"
          "{'name':'c','securityContext':{'seccompProfile':{'type':'Unconfined'}}},"
          "{'name':'d','securityContext':{'seccompProfile':{'type':'Unconfined'}}}]}}",
          "seccompProfile (pod and containers \"c\", \"d\" must not set securityContext.seccompProfile.type to "
          "\"Unconfined\")" },
        { "seccomp unset passes baseline", "baseline:latest",
          "{'spec':{'containers':[{'name':'a'}]}}", "" },
        { "seccomp annotations before v1.19", "baseline:v1.18",
          "{'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined',"
          "'container.seccomp.security.alpha.kubernetes.io/a':'unconfined',"
          "'container.seccomp.security.alpha.kubernetes.io/b':'unknown',"
          "'container.seccomp.security.alpha.kubernetes.io/c':'runtime/default',"
          "'container.seccomp.security.alpha.kubernetes.io/z':'unconfined'}},"
          "'spec':{'containers':[{'name':'a'},{'name':'b'},{'name':'c'}]}}",
          "seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/a=\"unconfined\", "
          "container.seccomp.security.alpha.kubernetes.io/b=\"unknown\", "
          "seccomp.security.alpha.kubernetes.io/pod=\"unconfined\")" },
        { "seccomp annotations ignored from v1.19", "baseline:v1.19",
          "{'metadata':{'annotations':{'seccomp.security.alpha.kubernetes.io/pod':'unconfined'}},"
          "'spec':{'containers':[{'name':'a'}]}}",
          "" },
        { "sysctls outside the safe set", "baseline:latest",
          "{'spec':{'securityContext':{'sysctls':[{'name':'a','value':'1'},{'name':'kernel.shm_rmid_forced'},"
          "{'name':'b'}]},'containers':[{'name':'a'}]}}",
          "forbidden sysctls (a, b)" },
        { "sysctl of v1.27 at v1.26", "baseline:v1.26",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.ip_local_reserved_ports'}]},'containers':[{'name':'a'}]}}",
          "forbidden sysctls (net.ipv4.ip_local_reserved_ports)" },
        { "sysctl of v1.27 at v1.27", "baseline:v1.27",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.ip_local_reserved_ports'}]},'containers':[{'name':'a'}]}}",
          "" },
        { "sysctl of v1.29 at v1.28", "baseline:v1.28",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.tcp_keepalive_time'}]},'containers':[{'name':'a'}]}}",
          "forbidden sysctls (net.ipv4.tcp_keepalive_time)" },
        { "sysctl of v1.32 at v1.31", "baseline:v1.31",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.tcp_rmem'}]},'containers':[{'name':'a'}]}}",
          "forbidden sysctls (net.ipv4.tcp_rmem)" },
        { "sysctl of v1.32 at latest", "baseline:latest",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.tcp_wmem'}]},'containers':[{'name':'a'}]}}",
          "" },
        { "a future version evaluates as the newest", "baseline:v1.99",
          "{'spec':{'securityContext':{'sysctls':[{'name':'net.ipv4.tcp_wmem'},{'name':'x'}]},'containers':[{'name':'a'}]}}",
          "forbidden sysctls (x)" },
        { "Windows hostProcess", "baseline:latest",
          "{'spec':{'securityContext':{'windowsOptions':{'hostProcess':true}},'containers':[{'name':'a',"
          "'securityContext':{'windowsOptions':{'hostProcess':true}}},{'name':'b','securityContext':"
          "{'windowsOptions':{'hostProcess':false}}}]}}",
          "hostProcess (pod and container \"a\" must not set securityContext.windowsOptions.hostProcess=true)" },
        { "several baseline checks, in check-ID order", "baseline:latest",
          "{'spec':{'hostNetwork':true,'containers':[{'name':'c','ports':[{'hostPort':80}],"
          "'securityContext':{'privileged':true,'capabilities':{'add':['SYS_ADMIN']}}}]}}",
          "non-default capabilities (container \"c\" must not include \"SYS_ADMIN\" in securityContext.capabilities.add), "
          "host namespaces (hostNetwork=true), hostPort (container \"c\" uses hostPort 80), "
          "privileged (container \"c\" must not set securityContext.privileged=true)" },
        { "ephemeral containers are checked", "baseline:latest",
          "{'spec':{'containers':[{'name':'a'}],'ephemeralContainers':[{'name':'dbg','securityContext':{'privileged':true}}]}}",
          "privileged (container \"dbg\" must not set securityContext.privileged=true)" },
        { "privileged level checks nothing", "privileged:latest",
          "{'spec':{'hostNetwork':true,'containers':[{'name':'a','securityContext':{'privileged':true}}]}}",
          "" },

        /* ---- restricted ---- */
        { "a root pod at restricted", "restricted:latest",
          "{'spec':{'containers':[{'name':'c1','image':'busybox'}]}}", ROOT_DETAIL },
        { "a compliant pod", "restricted:latest",
          "{'spec':{" OK_POD_SC
          ",'initContainers':[" OK_CONT("i") "],'containers':[" OK_CONT("a") "]}}",
          "" },
        { "container-level settings suffice", "restricted:latest",
          "{'spec':{'containers':[{'name':'a','securityContext':{'allowPrivilegeEscalation':false,'runAsNonRoot':true,"
          "'runAsUser':1000,'seccompProfile':{'type':'Localhost','localhostProfile':'p.json'},"
          "'capabilities':{'drop':['ALL'],'add':['NET_BIND_SERVICE']}}}]}}",
          "" },
        { "allowPrivilegeEscalation true or unset", "restricted:latest",
          "{'spec':{" OK_POD_SC
          ",'containers':[{'name':'a','securityContext':{'allowPrivilegeEscalation':true,"
          "'capabilities':{'drop':['ALL']}}},{'name':'b','securityContext':{'capabilities':{'drop':['ALL']}}}," OK_CONT(
                  "c") "]}}",
          "allowPrivilegeEscalation != false (containers \"a\", \"b\" must set securityContext.allowPrivilegeEscalation=false)" },
        { "unrestricted capabilities: drop and add", "restricted:latest",
          "{'spec':{" OK_POD_SC ",'containers':["
          "{'name':'a','securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'add':['FOO','BAR']}}},"
          "{'name':'b','securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'drop':['NET_RAW'],'add':['BAZ']}}},"
          "{'name':'c','securityContext':{'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL'],'add':['CHOWN','NET_BIND_SERVICE']}}}]}}",
          "unrestricted capabilities (containers \"a\", \"b\" must set securityContext.capabilities.drop=[\"ALL\"]; "
          "containers \"a\", \"b\", \"c\" must not include \"BAR\", \"BAZ\", \"CHOWN\", \"FOO\" in "
          "securityContext.capabilities.add)" },
        { "before v1.22 the baseline capabilities check runs instead", "restricted:v1.21",
          "{'spec':{" OK_POD_SC
          ",'containers':[{'name':'a','securityContext':{'allowPrivilegeEscalation':false,"
          "'capabilities':{'add':['SYS_ADMIN']}}}]}}",
          "non-default capabilities (container \"a\" must not include \"SYS_ADMIN\" in securityContext.capabilities.add)" },
        { "runAsNonRoot false at pod and containers", "restricted:latest",
          "{'spec':{'securityContext':{'runAsNonRoot':false,'seccompProfile':{'type':'RuntimeDefault'}},'containers':["
          "{'name':'c','securityContext':{'runAsNonRoot':false,'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']}}},"
          "{'name':'d','securityContext':{'runAsNonRoot':false,'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']}}}]}}",
          "runAsNonRoot != true (pod and containers \"c\", \"d\" must not set securityContext.runAsNonRoot=false)" },
        { "runAsNonRoot unset in two containers", "restricted:latest",
          "{'spec':{'securityContext':{'seccompProfile':{'type':'RuntimeDefault'}},'containers':[" OK_CONT(
                  "a") "," OK_CONT("b") ",{'name':'c','securityContext':{'runAsNonRoot':true,'allowPrivilegeEscalation':false,'capabilities':{'drop':['ALL']}}}]}}",
          "runAsNonRoot != true (pod or containers \"a\", \"b\" must set securityContext.runAsNonRoot=true)" },
        { "runAsUser 0", "restricted:latest",
          "{'spec':{'securityContext':{'runAsNonRoot':true,'runAsUser':0,'seccompProfile':{'type':'RuntimeDefault'}},"
          "'containers':[{'name':'c','securityContext':{'runAsUser':0,'allowPrivilegeEscalation':false,"
          "'capabilities':{'drop':['ALL']}}}," OK_CONT("d") "]}}",
          "runAsUser=0 (pod and container \"c\" must not set runAsUser=0)" },
        { "runAsUser 0 before v1.23", "restricted:v1.22",
          "{'spec':{'securityContext':{'runAsNonRoot':true,'runAsUser':0,'seccompProfile':{'type':'RuntimeDefault'}},"
          "'containers':[" OK_CONT("c") "]}}",
          "" },
        { "seccomp Unconfined in a container, once", "restricted:latest",
          "{'spec':{" OK_POD_SC
          ",'containers':[{'name':'a','securityContext':{'allowPrivilegeEscalation':false,"
          "'capabilities':{'drop':['ALL']},'seccompProfile':{'type':'Unconfined'}}}]}}",
          "seccompProfile (container \"a\" must not set securityContext.seccompProfile.type to \"Unconfined\")" },
        { "seccomp unset in two containers", "restricted:latest",
          "{'spec':{'securityContext':{'runAsNonRoot':true},'containers':[" OK_CONT(
                  "a") "," OK_CONT("b") "]}}",
          "seccompProfile (pod or containers \"a\", \"b\" must set securityContext.seccompProfile.type to "
          "\"RuntimeDefault\" or \"Localhost\")" },
        { "restricted volume types, hostPath not reported twice", "restricted:latest",
          "{'spec':{" OK_POD_SC ",'volumes':[{'name':'a1','emptyDir':{}},{'name':'a2','secret':{}},"
          "{'name':'a3','persistentVolumeClaim':{'claimName':'x'}},{'name':'a4','downwardAPI':{}},{'name':'a5','configMap':{}},"
          "{'name':'a6','projected':{}},{'name':'a7','csi':{}},{'name':'a8','ephemeral':{}},{'name':'a9','image':{}},"
          "{'name':'b1','hostPath':{}},{'name':'b2','gcePersistentDisk':{}},{'name':'b3','awsElasticBlockStore':{}},"
          "{'name':'b4','gitRepo':{}},{'name':'b5','nfs':{}},{'name':'b6','iscsi':{}},{'name':'b7','glusterfs':{}},"
          "{'name':'b8','rbd':{}},{'name':'b9','flexVolume':{}},{'name':'b10','cinder':{}},{'name':'b11','cephfs':{}},"
          "{'name':'b12','flocker':{}},{'name':'b13','fc':{}},{'name':'b14','azureFile':{}},{'name':'b15','vsphereVolume':{}},"
          "{'name':'b16','quobyte':{}},{'name':'b17','azureDisk':{}},{'name':'b18','photonPersistentDisk':{}},"
          "{'name':'b19','portworxVolume':{}},{'name':'b20','scaleIO':{}},{'name':'b21','storageos':{}},{'name':'c1'}],"
          "'containers':[" OK_CONT("a") "]}}",
          "restricted volume types (volumes \"b1\", \"b2\", \"b3\", \"b4\", \"b5\", \"b6\", \"b7\", \"b8\", \"b9\", \"b10\", "
          "\"b11\", \"b12\", \"b13\", \"b14\", \"b15\", \"b16\", \"b17\", \"b18\", \"b19\", \"b20\", \"b21\", \"c1\" use "
          "restricted volume types \"awsElasticBlockStore\", \"azureDisk\", \"azureFile\", \"cephfs\", \"cinder\", \"fc\", "
          "\"flexVolume\", \"flocker\", \"gcePersistentDisk\", \"gitRepo\", \"glusterfs\", \"hostPath\", \"iscsi\", \"nfs\", "
          "\"photonPersistentDisk\", \"portworxVolume\", \"quobyte\", \"rbd\", \"scaleIO\", \"storageos\", \"unknown\", "
          "\"vsphereVolume\")" },
        { "one restricted volume", "restricted:latest",
          "{'spec':{" OK_POD_SC
          ",'volumes':[{'name':'h','hostPath':{'path':'/tmp'}}],'containers':[" OK_CONT("a") "]}}",
          "restricted volume types (volume \"h\" uses restricted volume type \"hostPath\")" },
        { "baseline checks come first at restricted", "restricted:latest",
          "{'spec':{'hostPID':true,'containers':[{'name':'c1','image':'busybox'}]}}",
          "host namespaces (hostPID=true), " ROOT_DETAIL },
        { "a Windows pod from v1.25", "restricted:latest",
          "{'spec':{'os':{'name':'windows'},'containers':[{'name':'c1'}]}}",
          "runAsNonRoot != true (pod or container \"c1\" must set securityContext.runAsNonRoot=true)" },
        { "a Windows pod before v1.25", "restricted:v1.24",
          "{'spec':{'os':{'name':'windows'},'containers':[{'name':'c1'}]}}", ROOT_DETAIL },
        { "restricted at v1.0", "restricted:v1.0", "{'spec':{'containers':[{'name':'c1'}]}}",
          "runAsNonRoot != true (pod or container \"c1\" must set securityContext.runAsNonRoot=true)" },
        { "restricted at v1.8 adds allowPrivilegeEscalation", "restricted:v1.8",
          "{'spec':{'containers':[{'name':'c1'}]}}",
          "allowPrivilegeEscalation != false (container \"c1\" must set securityContext.allowPrivilegeEscalation=false), "
          "runAsNonRoot != true (pod or container \"c1\" must set securityContext.runAsNonRoot=true)" },
        { "null security contexts are unset", "restricted:latest",
          "{'spec':{'securityContext':null,'containers':[{'name':'c1','securityContext':null}]}}",
          ROOT_DETAIL },
};

static void test_checks(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(check_cases); i++) {
                cleanup_json json_t *pod = jparse(check_cases[i].pod);
                struct psa_level_version lv = lv_parse(check_cases[i].lv);
                struct psa_result r;
                cleanup_free char *detail = NULL;

                psa_evaluate(&lv, json_object_get(pod, "metadata"), json_object_get(pod, "spec"),
                             &r);
                detail = psa_result_forbidden_detail(&r);
                if (!streq(detail, check_cases[i].detail))
                        fail_msg("%s:\n  got  %s\n  want %s", check_cases[i].name, detail,
                                 check_cases[i].detail);
                psa_result_release(&r);
        }
}

static void test_forbidden_reason(void **state)
{
        cleanup_json json_t *pod =
                jparse("{'spec':{'hostPID':true,'containers':[{'name':'c1','image':'busybox'}]}}");
        struct psa_level_version lv = { PSA_LEVEL_RESTRICTED, PSA_VERSION_LATEST };
        struct psa_result r;
        cleanup_free char *reason = NULL;

        psa_evaluate(&lv, NULL, json_object_get(pod, "spec"), &r);
        reason = psa_result_forbidden_reason(&r);
        assert_string_equal(reason,
                            "host namespaces, allowPrivilegeEscalation != false, "
                            "unrestricted capabilities, runAsNonRoot != true, seccompProfile");
        psa_result_release(&r);
}

/* ---- namespace labels ---- */

static const struct {
        const char *labels;
        const char *enforce, *audit, *warn;
        const char *errors; /* field_error_list_string, "" for none */
} label_cases[] = {
        { "{}", "privileged:latest", "privileged:latest", "privileged:latest", "" },
        { "{'app':'x'}", "privileged:latest", "privileged:latest", "privileged:latest", "" },
        { "{'pod-security.kubernetes.io/enforce':'restricted'}", "restricted:latest",
          "privileged:latest", "restricted:latest", "" },
        { "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/enforce-version':'v1.24'}",
          "baseline:v1.24", "privileged:latest", "baseline:v1.24", "" },
        { "{'pod-security.kubernetes.io/enforce':'restricted','pod-security.kubernetes.io/warn':'privileged'}",
          "restricted:latest", "privileged:latest", "privileged:latest", "" },
        { "{'pod-security.kubernetes.io/enforce':'restricted','pod-security.kubernetes.io/warn-version':'v1.25'}",
          "restricted:latest", "privileged:latest", "restricted:v1.25", "" },
        { "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/warn':'restricted'}",
          "baseline:latest", "privileged:latest", "restricted:latest", "" },
        { "{'pod-security.kubernetes.io/enforce-version':'v1.24'}", "privileged:v1.24",
          "privileged:latest", "privileged:latest", "" },
        { "{'pod-security.kubernetes.io/audit':'baseline','pod-security.kubernetes.io/audit-version':'v1.0'}",
          "privileged:latest", "baseline:v1.0", "privileged:latest", "" },
        { "{'pod-security.kubernetes.io/enforce':'bogus'}", "restricted:latest",
          "privileged:latest", "privileged:latest",
          "metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: \"bogus\": must be one of "
          "privileged, baseline, restricted" },
        { "{'pod-security.kubernetes.io/audit':'Baseline','pod-security.kubernetes.io/warn':'x'}",
          "privileged:latest", "privileged:latest", "privileged:latest",
          "[metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: \"Baseline\": must be one of "
          "privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "
          "\"x\": must be one of privileged, baseline, restricted]" },
        { "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/enforce-version':'v1.x'}",
          "baseline:latest", "privileged:latest", "baseline:latest",
          "metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: \"v1.x\": must be "
          "\"latest\" or \"v1.x\"" },
        { "{'pod-security.kubernetes.io/warn-version':'v1.01'}", "privileged:latest",
          "privileged:latest", "privileged:latest",
          "metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"v1.01\": must be "
          "\"latest\" or \"v1.x\"" },
        { "{'pod-security.kubernetes.io/warn-version':'v2.0'}", "privileged:latest",
          "privileged:latest", "privileged:latest",
          "metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"v2.0\": must be "
          "\"latest\" or \"v1.x\"" },
        { "{'pod-security.kubernetes.io/warn':'baseline','pod-security.kubernetes.io/warn-version':'v1.99999'}",
          "privileged:latest", "privileged:latest", "baseline:v1.99999", "" },
        { "{'pod-security.kubernetes.io/warn-version':'v1.99999999999999999999'}",
          "privileged:latest", "privileged:latest", "privileged:latest",
          "metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: \"v1.99999999999999999999\": "
          "must be \"latest\" or \"v1.x\"" },
};

static void test_labels(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(label_cases); i++) {
                cleanup_json json_t *labels = jparse(label_cases[i].labels);
                struct field_error_list errs;
                struct psa_policy p;
                char e[PSA_LEVEL_VERSION_STRING_MAX], a[PSA_LEVEL_VERSION_STRING_MAX],
                        w[PSA_LEVEL_VERSION_STRING_MAX];
                cleanup_free char *got = NULL;
                size_t n;

                field_error_list_init(&errs);
                n = psa_policy_from_labels(labels, &p, &errs);
                got = errs.n ? field_error_list_string(&errs) : xstrdup("");
                if (!streq(psa_level_version_string(&p.modes[PSA_MODE_ENFORCE], e),
                           label_cases[i].enforce) ||
                    !streq(psa_level_version_string(&p.modes[PSA_MODE_AUDIT], a),
                           label_cases[i].audit) ||
                    !streq(psa_level_version_string(&p.modes[PSA_MODE_WARN], w),
                           label_cases[i].warn) ||
                    !streq(got, label_cases[i].errors) || n != errs.n)
                        fail_msg("%s: got %s %s %s [%s]", label_cases[i].labels, e, a, w, got);
                field_error_list_release(&errs);
        }
}

/* ---- the decision on a pod request ---- */

static void test_decision(void **state)
{
        static const struct {
                const char *labels;
                const char *pod;
                const char *forbidden; /* NULL: admitted */
                const char *warning;   /* NULL: none */
                const char *audit;     /* NULL: no audit-violations annotation */
                size_t n_evaluations;
        } cases[] = {
                { "{'pod-security.kubernetes.io/enforce':'restricted','pod-security.kubernetes.io/warn':'restricted'}",
                  "{'metadata':{'name':'x'},'spec':{'containers':[{'name':'c1','image':'busybox'}]}}",
                  "violates PodSecurity \"restricted:latest\": " ROOT_DETAIL, NULL, NULL, 1 },
                { "{'pod-security.kubernetes.io/warn':'restricted'}",
                  "{'metadata':{'name':'x'},'spec':{'containers':[{'name':'c1','image':'busybox'}]}}",
                  NULL, "would violate PodSecurity \"restricted:latest\": " ROOT_DETAIL, NULL, 2 },
                { "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/enforce-version':'v1.99',"
                  "'pod-security.kubernetes.io/audit':'restricted'}",
                  "{'spec':{'hostNetwork':true,'containers':[{'name':'c','securityContext':{'privileged':true}}]}}",
                  "violates PodSecurity \"baseline:v1.99\": host namespaces (hostNetwork=true), privileged (container "
                  "\"c\" must not set securityContext.privileged=true)",
                  NULL,
                  "would violate PodSecurity \"restricted:latest\": host namespaces (hostNetwork=true), privileged "
                  "(container \"c\" must not set securityContext.privileged=true), allowPrivilegeEscalation != false "
                  "(container \"c\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities "
                  "(container \"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or "
                  "container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" "
                  "must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")",
                  2 },
                { "{'pod-security.kubernetes.io/enforce':'restricted'}",
                  "{'spec':{" OK_POD_SC ",'containers':[" OK_CONT("a") "]}}", NULL, NULL, NULL, 1 },
                { "{'pod-security.kubernetes.io/audit':'baseline'}",
                  "{'spec':{'hostIPC':true,'containers':[{'name':'a'}]}}", NULL, NULL,
                  "would violate PodSecurity \"baseline:latest\": host namespaces (hostIPC=true)",
                  2 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *labels = jparse(cases[i].labels), *pod = jparse(cases[i].pod);
                struct field_error_list errs;
                struct psa_policy p;
                struct psa_decision d;
                const char *audit;

                field_error_list_init(&errs);
                assert_int_equal(psa_policy_from_labels(labels, &p, &errs), 0);
                psa_evaluate_pod(&p, &errs, pod, &d);
                if (cases[i].forbidden)
                        assert_string_equal(d.forbidden, cases[i].forbidden);
                else
                        assert_null(d.forbidden);
                assert_int_equal(json_array_size(d.warnings), cases[i].warning ? 1 : 0);
                if (cases[i].warning)
                        assert_string_equal(json_string_value(json_array_get(d.warnings, 0)),
                                            cases[i].warning);
                audit = json_string_value(json_object_get(d.audit_annotations, "audit-violations"));
                if (cases[i].audit)
                        assert_string_equal(audit, cases[i].audit);
                else
                        assert_null(audit);
                assert_non_null(json_object_get(d.audit_annotations, "enforce-policy"));
                assert_null(json_object_get(d.audit_annotations, "error"));
                assert_int_equal(d.n_evaluations, cases[i].n_evaluations);
                psa_decision_release(&d);
                field_error_list_release(&errs);
        }
}

/* Labels that do not parse: enforce fails closed (restricted:latest), and the error is the
 * "error" audit annotation. */
static void test_decision_bad_labels(void **state)
{
        cleanup_json json_t *labels = jparse("{'pod-security.kubernetes.io/enforce':'nope'}");
        cleanup_json json_t *pod = jparse("{'spec':{'containers':[{'name':'c1'}]}}");
        struct field_error_list errs;
        struct psa_policy p;
        struct psa_decision d;

        field_error_list_init(&errs);
        assert_int_equal(psa_policy_from_labels(labels, &p, &errs), 1);
        psa_evaluate_pod(&p, &errs, pod, &d);
        assert_string_equal(d.forbidden,
                            "violates PodSecurity \"restricted:latest\": " ROOT_DETAIL);
        assert_string_equal(
                json_string_value(json_object_get(d.audit_annotations, "error")),
                "Failed to parse policy: metadata.labels[pod-security.kubernetes.io/"
                "enforce]: Invalid value: \"nope\": must be one of privileged, baseline, "
                "restricted");
        assert_string_equal(
                json_string_value(json_object_get(d.audit_annotations, "enforce-policy")),
                "restricted:latest");
        assert_true(d.evaluations[0].deny);
        assert_int_equal(d.evaluations[0].mode, PSA_MODE_ENFORCE);
        psa_decision_release(&d);
        field_error_list_release(&errs);
}

/* ---- which updates are evaluated ---- */

static void test_significant_update(void **state)
{
        static const char *const old =
                "{'metadata':{'labels':{'a':'1'}},'spec':{'initContainers':[{'name':'i','image':'busybox'}],"
                "'containers':[{'name':'c','image':'busybox','resources':{'limits':{'cpu':'1'}}}],"
                "'ephemeralContainers':[{'name':'e','image':'busybox'}]}}";
        static const struct {
                const char *name;
                const char *new_pod;
                bool significant;
        } cases[] = {
                { "unchanged", old, false },
                { "a resize",
                  "{'metadata':{'labels':{'a':'1'}},'spec':{'initContainers':[{'name':'i','image':'busybox'}],"
                  "'containers':[{'name':'c','image':'busybox','resources':{'limits':{'cpu':'2'}}}],"
                  "'ephemeralContainers':[{'name':'e','image':'busybox'}]}}",
                  false },
                { "metadata and security context",
                  "{'metadata':{'labels':{'a':'2'},'annotations':{'x':'y'}},'spec':{'initContainers':[{'name':'i',"
                  "'image':'busybox'}],'containers':[{'name':'c','image':'busybox','securityContext':{'privileged':true}}],"
                  "'ephemeralContainers':[{'name':'e','image':'busybox'}]}}",
                  false },
                { "a container image",
                  "{'spec':{'initContainers':[{'name':'i','image':'busybox'}],'containers':[{'name':'c','image':'other'}],"
                  "'ephemeralContainers':[{'name':'e','image':'busybox'}]}}",
                  true },
                { "an init container image",
                  "{'spec':{'initContainers':[{'name':'i','image':'other'}],'containers':[{'name':'c','image':'busybox'}],"
                  "'ephemeralContainers':[{'name':'e','image':'busybox'}]}}",
                  true },
                { "a container more",
                  "{'spec':{'initContainers':[{'name':'i','image':'busybox'}],'containers':[{'name':'c','image':'busybox'},"
                  "{'name':'d','image':'busybox'}],'ephemeralContainers':[{'name':'e','image':'busybox'}]}}",
                  true },
                { "an ephemeral container added",
                  "{'spec':{'initContainers':[{'name':'i','image':'busybox'}],'containers':[{'name':'c','image':'busybox'}],"
                  "'ephemeralContainers':[{'name':'e','image':'busybox'},{'name':'f','image':'busybox'}]}}",
                  true },
                { "an ephemeral container's image",
                  "{'spec':{'initContainers':[{'name':'i','image':'busybox'}],'containers':[{'name':'c','image':'busybox'}],"
                  "'ephemeralContainers':[{'name':'e','image':'other'}]}}",
                  true },
        };
        cleanup_json json_t *o = jparse(old);

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *n = jparse(cases[i].new_pod);
                if (psa_pod_update_significant(n, o) != cases[i].significant)
                        fail_msg("%s: expected significant=%d", cases[i].name,
                                 cases[i].significant);
        }
}

/* ---- namespaces ---- */

static void test_namespace_admit(void **state)
{
        static const struct {
                const char *name;
                const char *old_labels; /* NULL: a create */
                const char *new_labels;
                int result;
                const char *check; /* the level to dry-run when result is 1 */
        } cases[] = {
                { "create, valid", NULL, "{'pod-security.kubernetes.io/enforce':'restricted'}", 0,
                  NULL },
                { "create, invalid", NULL, "{'pod-security.kubernetes.io/enforce':'strict'}",
                  -EBADMSG, NULL },
                { "enforce set", "{}", "{'pod-security.kubernetes.io/enforce':'restricted'}", 1,
                  "restricted:latest" },
                { "enforce unchanged", "{'pod-security.kubernetes.io/enforce':'baseline'}",
                  "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/warn':'restricted'}",
                  0, NULL },
                { "enforce relaxed", "{'pod-security.kubernetes.io/enforce':'restricted'}",
                  "{'pod-security.kubernetes.io/enforce':'baseline'}", 0, NULL },
                { "enforce privileged", "{'pod-security.kubernetes.io/enforce':'baseline'}",
                  "{'pod-security.kubernetes.io/enforce':'privileged'}", 0, NULL },
                { "enforce raised", "{'pod-security.kubernetes.io/enforce':'baseline'}",
                  "{'pod-security.kubernetes.io/enforce':'restricted'}", 1, "restricted:latest" },
                { "enforce version changed", "{'pod-security.kubernetes.io/enforce':'baseline'}",
                  "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/enforce-version':'v1.20'}",
                  1, "baseline:v1.20" },
                { "relaxed with a version change",
                  "{'pod-security.kubernetes.io/enforce':'restricted'}",
                  "{'pod-security.kubernetes.io/enforce':'baseline','pod-security.kubernetes.io/enforce-version':'v1.30'}",
                  1, "baseline:v1.30" },
                { "invalid before and after, the same way",
                  "{'pod-security.kubernetes.io/warn':'x','a':'1'}",
                  "{'pod-security.kubernetes.io/warn':'x','a':'2'}", 0, NULL },
                { "invalid after a change", "{'pod-security.kubernetes.io/warn':'x'}",
                  "{'pod-security.kubernetes.io/warn':'y'}", -EBADMSG, NULL },
                { "invalid made", "{}", "{'pod-security.kubernetes.io/audit-version':'1.25'}",
                  -EBADMSG, NULL },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *ns = json_pack("{s:{s:s, s:o}}", "metadata", "name", "n",
                                                    "labels", jparse(cases[i].new_labels));
                cleanup_json json_t *old =
                        cases[i].old_labels ? json_pack("{s:{s:s, s:o}}", "metadata", "name", "n",
                                                        "labels", jparse(cases[i].old_labels))
                                            : NULL;
                struct psa_level_version check = { 0 };
                struct field_error_list errs;
                char buf[PSA_LEVEL_VERSION_STRING_MAX];
                int r;

                field_error_list_init(&errs);
                r = psa_namespace_admit(ns, old, &errs, &check);
                if (r != cases[i].result)
                        fail_msg("%s: got %d", cases[i].name, r);
                if (r == -EBADMSG)
                        assert_true(errs.n > 0);
                if (r == 1)
                        assert_string_equal(psa_level_version_string(&check, buf), cases[i].check);
                field_error_list_release(&errs);
        }
}

static json_t *ns_pod(const char *name, const char *spec, const char *controller)
{
        json_t *p = json_pack("{s:{s:s}, s:o}", "metadata", "name", name, "spec", jparse(spec));

        if (controller)
                json_object_set_new(json_object_get(p, "metadata"), "ownerReferences",
                                    json_pack("[{s:s, s:s, s:b}]", "kind", "ReplicaSet", "uid",
                                              controller, "controller", true));
        return p;
}

#define ROOT_SPEC "{'containers':[{'name':'c','image':'busybox'}]}"
#define ROOT_REASON \
 "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"

static void test_namespace_pods(void **state)
{
        struct psa_level_version restricted = { PSA_LEVEL_RESTRICTED, PSA_VERSION_LATEST };
        struct psa_level_version baseline = { PSA_LEVEL_BASELINE, 24 };
        cleanup_json json_t *pods = json_array(), *none = json_array();
        cleanup_json json_t *w = NULL, *wb = NULL, *empty = NULL;

        json_array_append_new(pods, ns_pod("zeta", ROOT_SPEC, NULL));
        json_array_append_new(pods, ns_pod("beta", ROOT_SPEC, NULL));
        json_array_append_new(pods, ns_pod("gamma", ROOT_SPEC, "rs-1"));
        json_array_append_new(
                pods, ns_pod("ok", "{" OK_POD_SC ",'containers':[" OK_CONT("a") "]}", NULL));
        json_array_append_new(
                pods, ns_pod("host", "{'hostNetwork':true,'containers':[{'name':'c'}]}", NULL));
        w = psa_namespace_pods_warnings("ns1", &restricted, pods, 0);
        assert_int_equal(json_array_size(w), 3);
        assert_string_equal(
                json_string_value(json_array_get(w, 0)),
                "existing pods in namespace \"ns1\" violate the new PodSecurity enforce "
                "level \"restricted:latest\"");
        assert_string_equal(json_string_value(json_array_get(w, 1)),
                            "beta (and 2 other pods): " ROOT_REASON);
        assert_string_equal(json_string_value(json_array_get(w, 2)),
                            "host: host namespaces, " ROOT_REASON);

        wb = psa_namespace_pods_warnings("ns1", &baseline, pods, 0);
        assert_int_equal(json_array_size(wb), 2);
        assert_string_equal(
                json_string_value(json_array_get(wb, 0)),
                "existing pods in namespace \"ns1\" violate the new PodSecurity enforce "
                "level \"baseline:v1.24\"");
        assert_string_equal(json_string_value(json_array_get(wb, 1)), "host: host namespaces");

        empty = psa_namespace_pods_warnings("ns1", &restricted, none, 0);
        assert_int_equal(json_array_size(empty), 0);
}

/* Two failing pods share a warning as "(and 1 other pod)"; past 3000 pods only the first 3000
 * are checked (upstream's limit), with pods of one controller checked after the others. */
static void test_namespace_pods_limit(void **state)
{
        struct psa_level_version baseline = { PSA_LEVEL_BASELINE, PSA_VERSION_LATEST };
        cleanup_json json_t *pods = json_array(), *two = json_array();
        cleanup_json json_t *w = NULL, *w2 = NULL;
        char name[32];

        /* 3001 pods of one controller, the first of them privileged, then one host pod that is
         * only checked because the controller's other pods go last. */
        for (int i = 0; i < 3001; i++) {
                (void) snprintf(name, sizeof(name), "rs-%04d", i);
                json_array_append_new(
                        pods,
                        ns_pod(name,
                               i == 0 ? "{'containers':[{'name':'c','securityContext':{'privileged':true}}]}"
                                      : "{'containers':[{'name':'c'}]}",
                               "uid-rs"));
        }
        json_array_append_new(pods,
                              ns_pod("lone", "{'hostIPC':true,'containers':[{'name':'c'}]}", NULL));
        w = psa_namespace_pods_warnings("big", &baseline, pods, 0);
        assert_int_equal(json_array_size(w), 4);
        assert_string_equal(json_string_value(json_array_get(w, 0)),
                            "new PodSecurity enforce level only checked against the first 3000 of "
                            "3002 existing pods");
        assert_string_equal(json_string_value(json_array_get(w, 2)), "lone: host namespaces");
        assert_string_equal(json_string_value(json_array_get(w, 3)), "rs-0000: privileged");

        json_array_append_new(two,
                              ns_pod("b", "{'hostPID':true,'containers':[{'name':'c'}]}", NULL));
        json_array_append_new(two,
                              ns_pod("a", "{'hostPID':true,'containers':[{'name':'c'}]}", NULL));
        w2 = psa_namespace_pods_warnings("n", &baseline, two, 0);
        assert_string_equal(json_string_value(json_array_get(w2, 1)),
                            "a (and 1 other pod): host namespaces");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_checks),
                cmocka_unit_test(test_forbidden_reason),
                cmocka_unit_test(test_labels),
                cmocka_unit_test(test_decision),
                cmocka_unit_test(test_decision_bad_labels),
                cmocka_unit_test(test_significant_update),
                cmocka_unit_test(test_namespace_admit),
                cmocka_unit_test(test_namespace_pods),
                cmocka_unit_test(test_namespace_pods_limit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
