using System.Reflection;
using System.Reflection.Emit;
using Microsoft.Azure.WebJobs;
using Microsoft.Azure.WebJobs.Extensions.DurableTask;
using Newtonsoft.Json.Linq;

namespace DurableHost;

/// <summary>
/// The app's function names are known only at run time, so its durable functions are presented to the
/// WebJobs SDK as generated static methods (as the Functions host does for language-worker functions),
/// each with its trigger attribute and a body that calls NodeBridge.
/// </summary>
public static class AppFunctionsBuilder
{
    public static Type Build(IReadOnlyList<DurableFunction> functions, NodeBridge bridge)
    {
        NodeBridge.Current = bridge;
        var assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("AppFunctions"), AssemblyBuilderAccess.Run);
        var type = assembly.DefineDynamicModule("AppFunctions")
            .DefineType("AppFunctions", TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
        var index = 0;
        foreach (var function in functions)
        {
            switch (function.Kind)
            {
                case FunctionKind.Orchestrator:
                    Define(type, function.Name, index++, typeof(Task<string>), [typeof(string)], ["context"],
                        Attribute<OrchestrationTriggerAttribute>(nameof(OrchestrationTriggerAttribute.Orchestration), function.Name),
                        nameof(NodeBridge.Orchestrate));
                    break;
                case FunctionKind.Activity:
                    // The second parameter binds to the trigger's instanceId binding data.
                    Define(type, function.Name, index++, typeof(Task<JToken?>), [typeof(JToken), typeof(string)], ["input", "instanceId"],
                        Attribute<ActivityTriggerAttribute>(nameof(ActivityTriggerAttribute.Activity), function.Name),
                        nameof(NodeBridge.RunActivity));
                    break;
                case FunctionKind.Entity:
                    Define(type, function.Name, index++, typeof(Task<JToken?>), [typeof(string)], ["batch"],
                        Attribute<EntityTriggerAttribute>(nameof(EntityTriggerAttribute.EntityName), function.Name),
                        nameof(NodeBridge.RunEntity));
                    break;
            }
        }
        return type.CreateType();
    }

    private static void Define(
        TypeBuilder type, string functionName, int index, Type returnType, Type[] parameters, string[] parameterNames,
        CustomAttributeBuilder trigger, string bridgeMethod)
    {
        var method = type.DefineMethod($"Function{index}", MethodAttributes.Public | MethodAttributes.Static, returnType, parameters);
        method.SetCustomAttribute(new CustomAttributeBuilder(
            typeof(FunctionNameAttribute).GetConstructor([typeof(string)])!, [functionName]));
        for (var i = 0; i < parameters.Length; i++)
        {
            var parameter = method.DefineParameter(i + 1, ParameterAttributes.None, parameterNames[i]);
            if (i == 0) parameter.SetCustomAttribute(trigger);
        }
        var il = method.GetILGenerator();
        il.Emit(OpCodes.Ldstr, functionName);
        for (var i = 0; i < parameters.Length; i++) il.Emit(OpCodes.Ldarg, i);
        il.Emit(OpCodes.Call, typeof(NodeBridge).GetMethod(bridgeMethod)!);
        il.Emit(OpCodes.Ret);
    }

    private static CustomAttributeBuilder Attribute<T>(string nameProperty, string name) where T : Attribute =>
        new(typeof(T).GetConstructor(Type.EmptyTypes)!, [], [typeof(T).GetProperty(nameProperty)!], [name]);
}
